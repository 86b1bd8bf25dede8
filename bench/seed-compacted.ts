// A long-lived agent's thread: many messages, compacted time and again, its
// effective history short. The prune and fork rows' sources.
import { SUMMARY } from './messages.js';
import { seedThread, type SqlRunner } from './seed.js';
import type { Engine, Target } from './targets/target.js';

export interface Compacted {
  /** Messages in the transcript. */
  messages: number;
  compactions: number;
  /** Messages in the effective history after the last compaction (its summary among them). */
  effective: number;
}

/**
 * `messages` messages (the raw driver's, in one statement: quick at any size), compacted `compactions`
 * times through the store, a stretch of the log each time, the last leaving `effective`.
 */
export async function seedCompacted(
  engine: Engine,
  raw: SqlRunner,
  ours: Target,
  threadId: string,
  { messages, compactions, effective }: Compacted,
): Promise<void> {
  await seedThread(engine, raw, threadId, messages);
  const step = Math.floor((messages - effective) / compactions);
  // After the first, each compaction replaces the previous summary and `step` messages.
  for (let k = 1; k < compactions; k++) await ours.compact!(threadId, SUMMARY, k === 1 ? step : step + 1);
  await ours.compact!(threadId, SUMMARY, (await ours.count!(threadId)) - (effective - 1));
}
