// The replica rows: the reads the store can serve from a hot standby, timed on
// the store given the standby, on the same store without it (everything on the
// primary), and on the raw reference reading the same rows on the standby. One
// fresh database on the primary, migrated by the store, seeded by the raw driver
// there (a compaction through the store), and replayed by the standby before
// any read. Each read is checked: the page's first session, the export's lines
// (equal to the reference's), the transcript page's seqs.
import type { BenchReplication } from './clusters.js';
import type { Sizes } from './config.js';
import { elapsedMs } from './measure.js';
import { benchMessage, SUMMARY } from './messages.js';
import { analyze, seedSessions, seedThread, type SqlRunner } from './seed.js';
import { statementsByPort } from './statements.js';
import { withTimeout, type SuiteResult } from './suite.js';
import { openOurs } from './targets/ours.js';
import { RawPostgres } from './targets/raw-postgres.js';
import { openRawOnStandby, openStoreWithReplica } from './targets/replica.js';
import type { SessionPage, Target, TargetKey } from './targets/target.js';
import { pageAfter, sizedLabel, timed, type RowSpec } from './workloads.js';

const SESSIONS = 'session-';
const LABELS: Partial<Record<TargetKey, string>> = { oursReplica: 'with the replica', ours: 'without' };
const EXPORTED = 'exported';
const PAGED = 'paged';

export const REPLICA_ROWS: RowSpec[] = [
  { key: 'replicaList', label: 'SessionStore.list, first page', unit: 'ms' },
  { key: 'replicaExport', label: 'SessionStore.exportJsonl, compacted session', unit: 'ms' },
  { key: 'replicaPage', label: 'MessageStore.getTranscriptPage, a page after a cursor', unit: 'ms' },
];

export async function runReplicaSuite(servers: BenchReplication, sizes: Sizes, cellTimeoutMs: number, log: (line: string) => void): Promise<SuiteResult> {
  const result: SuiteResult = {
    engine: 'postgresql',
    label: servers.label,
    version: servers.version,
    settings: servers.settings,
    rows: [],
    notes: [],
    errors: [],
  };
  result.rows = REPLICA_ROWS.map((row) => ({ ...row, cells: {} }));
  const open: Target[] = [];
  const track = (target: Target) => (open.push(target), target);
  try {
    const { primary, standby } = await servers.fresh('replica');
    const readers = new Map<TargetKey, Target>();
    readers.set('oursReplica', track(await openStoreWithReplica(primary, standby)));
    const ours = track(await openOurs(primary));
    readers.set('ours', ours);
    const seeder = track(new RawPostgres(primary, 'atomic')) as Target & SqlRunner;
    const took = await elapsedMs(async () => {
      await seed(seeder, ours, sizes);
      await servers.caughtUp();
    });
    log(`${servers.label}: seeded on the primary and replayed by the standby in ${(took / 1000).toFixed(1)} s`);
    readers.set('raw', track(openRawOnStandby(standby)));

    const expected = await readers.get('raw')!.exportJsonl!(EXPORTED);
    const standbyPort = Number(new URL(standby).port);
    const answered: string[] = [];
    const after = pageAfter(sizes);
    const reads: Record<string, (target: Target, key: TargetKey) => Promise<number>> = {
      replicaList: (target) =>
        timed(
          () => target.listSessions!(sizes.pageSize),
          (page) => checkList(page, sizes),
          sizes,
        ),
      replicaExport: (target) =>
        timed(
          () => target.exportJsonl!(EXPORTED),
          (lines) => checkExport(lines, expected),
          sizes,
        ),
      async replicaPage(target, key) {
        // The store's cursor is its own: the one that ends a first page of `after` messages.
        const cursor = key === 'raw' ? after : (await target.transcriptPage!(PAGED, after)).next;
        return timed(
          () => target.transcriptPage!(PAGED, sizes.pageSize, cursor),
          (page) => checkPage(page, after, sizes),
          sizes,
        );
      },
    };
    for (const row of REPLICA_ROWS) {
      log(`${servers.label}: ${sizedLabel(row.key, row.label, sizes)}`);
      const cells = result.rows.find((each) => each.key === row.key)!.cells;
      for (const [key, target] of readers) {
        try {
          let value = 0;
          const byPort = await statementsByPort(async () => (value = await withTimeout(reads[row.key](target, key), cellTimeoutMs)));
          cells[key] = { value };
          log(`  ${key}: ${value.toFixed(2)} ms`);
          if (key !== 'raw')
            answered.push(`${row.label}, ${LABELS[key]}: ${byPort.get(standbyPort) ?? 0} of ${[...byPort.values()].reduce((sum, n) => sum + n, 0)}`);
        } catch (error) {
          const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
          cells[key] = { error: message };
          result.errors.push(`${servers.label}, ${key}, ${row.key}: ${message}`);
          log(`  ${key}: FAILED ${message}`);
        }
      }
    }
    result.notes.push(
      `Statements the store's timed reads of a row (the first, checked, and the repeats) sent to the standby, of all they sent (node-postgres's, counted by server): ${answered.join('; ')}.`,
      'nestjs-agent-store: StoreModule.forRoot({ url: primary, migrate: true }), every read on the primary; the raw driver: pg (a pool of 10) on the standby, ' +
        "each read's statements in one repeatable-read snapshot; the store's export is checked to be the reference's, line for line. Nothing is written while the reads are timed.",
    );
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    result.errors.push(`${servers.label}: ${message}`);
    log(`${servers.label}: FAILED ${message}`);
  } finally {
    for (const target of open.reverse()) await target.close().catch((error: Error) => log(`closing a target failed: ${error.message}`));
  }
  return result;
}

/** The sessions of the list, the compacted session to export (as the read rows' compacted thread), and the long thread to page. */
async function seed(sql: Target & SqlRunner, ours: Target, sizes: Sizes): Promise<void> {
  await seedThread('postgresql', sql, PAGED, sizes.historyMessages);
  const before = sizes.smallTranscript - sizes.effectiveMessages + 1;
  await seedThread('postgresql', sql, EXPORTED, before);
  await ours.compact!(EXPORTED, SUMMARY, before);
  await ours.appendMany!(
    EXPORTED,
    Array.from({ length: sizes.effectiveMessages - 1 }, (_, i) => benchMessage(before + 1 + i)),
  );
  await seedSessions('postgresql', sql, SESSIONS, sizes.sessions);
  await analyze('postgresql', sql);
}

function checkList(page: SessionPage, sizes: Sizes): void {
  const first = (page.sessions[0] as { id: string } | undefined)?.id;
  const newest = `${SESSIONS}${String(sizes.sessions).padStart(6, '0')}`;
  if (page.sessions.length !== sizes.pageSize || first !== newest)
    throw new Error(`the page holds ${page.sessions.length} sessions from ${first}, not ${sizes.pageSize} from ${newest}`);
}

function checkExport(lines: string[], expected: string[]): void {
  if (lines.length !== expected.length) throw new Error(`the export has ${lines.length} lines, the reference's ${expected.length}`);
  const differs = lines.findIndex((line, i) => line !== expected[i]);
  if (differs >= 0) throw new Error(`line ${differs + 1} of the export is ${lines[differs].slice(0, 200)}, the reference's ${expected[differs].slice(0, 200)}`);
}

function checkPage(page: { messages: unknown[] }, after: number, sizes: Sizes): void {
  const seqs = page.messages.map((message) => (message as { seq: number }).seq);
  if (seqs.length !== sizes.pageSize || seqs[0] !== after + 1)
    throw new Error(`the page holds ${seqs.length} messages from seq ${seqs[0]}, not ${sizes.pageSize} from ${after + 1}`);
}
