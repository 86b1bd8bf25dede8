// Stops, by pid, the servers that the global setup started, and removes the run's temporary directory.
export default async function globalTeardown(): Promise<void> {
  await globalThis.agentStoreStopServers?.();
}
