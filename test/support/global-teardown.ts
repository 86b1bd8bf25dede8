// Stops, by pid, the servers that the global setup started.
export default async function globalTeardown(): Promise<void> {
  await globalThis.agentStoreStopServers?.();
}
