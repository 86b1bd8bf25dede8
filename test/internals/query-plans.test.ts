// Every read the MessageStore issues on SQLite is an index search, never a table scan,
// and getHistory of a compacted thread reads only the boundary and what follows it.
import { PrismaClient } from '../../src/generated/sqlite/client.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { migrate } from '../../src/engine/open-database.js';
import { KITS } from '../../src/databases/index.js';
import type { StoreClient } from '../../src/engine/store-client.js';
import { PrismaMessageStore } from '../../src/stores/messages/message-store.service.js';
import { PrismaSessionStore } from '../../src/stores/sessions/session-store.service.js';
import { SerializedSqliteAdapterFactory } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

interface Captured {
  query: string;
  params: unknown[];
}

const clientWithQueryEvents = (factory: SerializedSqliteAdapterFactory) =>
  new PrismaClient({ adapter: factory, log: [{ emit: 'event' as const, level: 'query' as const }] });
let client: ReturnType<typeof clientWithQueryEvents>;
let store: PrismaMessageStore;
let sessions: PrismaSessionStore;
let captured: Captured[] = [];

beforeAll(async () => {
  const factory = new SerializedSqliteAdapterFactory(tempSqliteUrl());
  await migrate(factory, KITS.sqlite);
  client = clientWithQueryEvents(factory);
  client.$on('query', (event) => captured.push({ query: event.query, params: JSON.parse(event.params) as unknown[] }));
  const db = new StoreDatabase(client as unknown as StoreClient, KITS.sqlite, {});
  store = new PrismaMessageStore(db);
  sessions = new PrismaSessionStore(db);
});
afterAll(() => client.$disconnect());

async function selectsOf(work: () => Promise<unknown>): Promise<Captured[]> {
  captured = [];
  await work();
  return captured.filter((c) => /^\s*SELECT/i.test(c.query) && /agent_(message|boundary|repair)/.test(c.query));
}

async function planOf({ query, params }: Captured): Promise<string> {
  const rows = await client.$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${query}`, ...params);
  return rows.map((row) => row.detail).join('\n');
}

test('reads search the primary key (thread_id, seq); none scans a table', async () => {
  await store.appendMany(
    'planned',
    Array.from({ length: 50 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
  );
  await store.appendCompaction('planned', [{ role: 'system', content: 'summary' }], 40, 0);
  await store.appendRepair('planned', { role: 'tool', content: [{ type: 'text', text: 'r' }] }, [{ role: 'system', content: 'balanced' }], 2);

  const reads = [
    ...(await selectsOf(() => store.getHistory('planned'))),
    ...(await selectsOf(() => store.count('planned'))),
    ...(await selectsOf(() => store.getTranscript('planned'))),
    ...(await selectsOf(() => store.getRepairs('planned'))),
  ];
  expect(reads.length).toBeGreaterThanOrEqual(6);
  for (const read of reads) {
    const plan = await planOf(read);
    expect(plan).toMatch(/SEARCH .*(PRIMARY KEY|INDEX)/);
    // "SCAN sub" walks a subquery's own result, which is fine; a table must never be scanned.
    expect(plan).not.toMatch(/\bSCAN (main\.)?agent_/);
  }
});

test('a log page from a seq deep in a long log searches the primary keys of messages and boundaries, reading one page', async () => {
  await store.appendMany(
    'long-log',
    Array.from({ length: 2_000 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
  );
  await store.appendCompaction('long-log', [{ role: 'system', content: 'summary' }], 1_500, 0);
  await store.appendMany(
    'long-log',
    Array.from({ length: 500 }, (_, i) => ({ role: 'user' as const, content: `n${i}` })),
  );
  let page: Awaited<ReturnType<PrismaSessionStore['getLogPage']>> | undefined;
  const reads = await selectsOf(async () => (page = await sessions.getLogPage('long-log', { fromSeq: 1_990, limit: 20 })));
  expect(page!.entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 1_990 + i));
  expect(page!.entries.find((entry) => entry.type === 'compaction')?.seq).toBe(2_001);
  expect(reads.length).toBeGreaterThanOrEqual(2);
  for (const read of reads) {
    const plan = await planOf(read);
    expect(plan).toMatch(/SEARCH .*(PRIMARY KEY|INDEX)/);
    expect(plan).not.toMatch(/\bSCAN (main\.)?agent_/);
    // Each read takes at most one page and one more row, never the log.
    expect(read.query).toMatch(/LIMIT/i);
  }
});

test("history pages and a compaction's precondition search the primary key too, with and without a boundary", async () => {
  await store.appendMany(
    'paged',
    Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
  );
  const pageOf = async () => {
    const first = await store.getHistoryPage('paged', { limit: 3 });
    return [first, ...(await selectsOf(() => store.getHistoryPage('paged', { limit: 3, cursor: first.nextCursor! })))] as const;
  };
  const [unbounded, ...unboundedReads] = await pageOf();
  const compactionReads = await selectsOf(() =>
    store.appendCompaction('paged', [{ role: 'system', content: 'summary' }], 2, 0, { expectedStartSeq: unbounded.startSeq }),
  );
  const [, ...boundedReads] = await pageOf();
  const reads = [...unboundedReads, ...compactionReads, ...boundedReads];
  // Without a boundary, where the history starts is its first message: one more read.
  expect(unboundedReads.filter((read) => /ORDER BY .*seq.* ASC LIMIT/i.test(read.query)).length).toBeGreaterThanOrEqual(2);
  for (const read of reads) {
    const plan = await planOf(read);
    expect(plan).toMatch(/SEARCH .*(PRIMARY KEY|INDEX)/);
    expect(plan).not.toMatch(/\bSCAN (main\.)?agent_/);
  }
});

test('getHistory of a compacted thread reads the latest boundary and only the messages after its cut', async () => {
  await store.appendMany(
    'long',
    Array.from({ length: 2000 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
  );
  await store.appendCompaction('long', [{ role: 'system', content: 'summary' }], 1998, 0);
  const reads = await selectsOf(() => store.getHistory('long'));
  const messageRead = reads.find((read) => read.query.includes('agent_message'));
  const boundaryRead = reads.find((read) => read.query.includes('agent_boundary'));
  expect(boundaryRead?.query).toMatch(/LIMIT/i);
  // The message read is bounded below by the boundary's cut, so it touches 2 rows, not 2000.
  expect(messageRead?.params).toContain(1998);
  expect(await planOf(messageRead!)).toMatch(/SEARCH \S*agent_message USING (PRIMARY KEY|INDEX sqlite_autoindex_agent_message_1) \(thread_id=\? AND seq>\?\)/);
  expect((await store.getHistory('long')).map((m) => m.content)).toEqual(['summary', 'm1998', 'm1999']);
});
