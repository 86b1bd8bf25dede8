// The fork rows' database: fresh, migrated by the store, holding both sources
// (a long compacted thread, and a thread of as many messages as its effective
// history), which the store on its url, the store on its own client and the raw
// driver fork in turn. Forks only add sessions, so one database serves them all.
import type { Sizes } from './config.js';
import type { BenchDatabase } from './databases.js';
import { analyze, seedThread, type SqlRunner } from './seed.js';
import { seedCompacted } from './seed-compacted.js';
import { openRaw } from './targets/index.js';
import { openOurs } from './targets/ours.js';
import { openOursClient } from './targets/ours-client.js';
import type { Target, TargetKey } from './targets/target.js';
import type { ForkData } from './workloads.js';

export interface Forkable {
  targets: Map<TargetKey, Target>;
  fork: ForkData;
  close(): Promise<void>;
}

const COMPACTED = 'fork-compacted';
const SHORT = 'fork-short';

export async function openForkable(db: BenchDatabase, sizes: Sizes): Promise<Forkable> {
  const url = await db.fresh('fork');
  const opened: Target[] = [];
  const close = async () => {
    for (const target of opened.reverse()) await target.close();
  };
  try {
    const ours = await openOurs(url);
    opened.push(ours);
    const raw = openRaw(db.engine, url, 'atomic') as Target & SqlRunner;
    opened.push(raw);
    const oursClient = await openOursClient(db.engine, url, 'direct');
    opened.push(oursClient);
    await seedCompacted(db.engine, raw, ours, COMPACTED, {
      messages: sizes.forkMessages,
      compactions: sizes.pruneCompactions,
      effective: sizes.effectiveMessages,
    });
    await seedThread(db.engine, raw, SHORT, sizes.effectiveMessages);
    await analyze(db.engine, raw);
    const targets = new Map<TargetKey, Target>([
      ['ours', ours],
      ['oursClient', oursClient],
      ['raw', raw],
    ]);
    return { targets, fork: { compactedThread: COMPACTED, shortThread: SHORT }, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
