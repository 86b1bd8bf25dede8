// The columns of the table, in order: the store (on its url, on the app's own
// client, in the app's transaction), the raw-driver reference that every ratio
// is measured against, its floor, and the peers.
import { openLangGraph, openLangGraphOurs } from './langgraph.js';
import { openMastra } from './mastra.js';
import { openOurs } from './ours.js';
import { openOursClient } from './ours-client.js';
import { openPrisma } from './prisma.js';
import { RawMariaDb } from './raw-mariadb.js';
import { RawPostgres } from './raw-postgres.js';
import { RawSqlite } from './raw-sqlite.js';
import type { Column, Engine, Target, TargetKind } from './target.js';

const ALL: Engine[] = ['sqlite', 'postgresql', 'mysql'];

export function openRaw(engine: Engine, url: string, mode: 'atomic' | 'plain'): Target {
  switch (engine) {
    case 'sqlite':
      return new RawSqlite(url.slice('file:'.length), mode);
    case 'postgresql':
      return new RawPostgres(url, mode);
    case 'mysql':
      return new RawMariaDb(url, mode);
  }
}

export const TARGET_KINDS: TargetKind[] = [
  {
    key: 'ours',
    label: 'nestjs-agent-store',
    description:
      'StoreModule.forRoot({ url, migrate: true }) booted with NestFactory.createApplicationContext on a fresh database; the unscoped MessageStore, TranscriptStore and SessionStore ' +
      '(on the tenant-scoped rows, the stores of TenantStores.forTenant(tenant)).',
    engines: ALL,
    usesStoreSchema: false,
    open: (_engine, url) => openOurs(url),
  },
  {
    key: 'oursClient',
    label: 'nestjs-agent-store, own PrismaClient',
    description:
      "StoreModule.forRoot({ prisma }) booted the same way, given the provider's generated PrismaClient built as an app builds it (new SerializedSqliteAdapterFactory(url); " +
      "Prisma's PrismaPg and PrismaMariaDb, pools of 10) on a database that has the store's tables; the same stores and calls.",
    engines: ALL,
    usesStoreSchema: true,
    open: (engine, url) => openOursClient(engine, url, 'direct'),
  },
  {
    key: 'oursClientTx',
    label: "nestjs-agent-store, own PrismaClient, in the app's transaction",
    description:
      "The same store and client, each write in a transaction of the app's that the store joins: prisma.$transaction(async (tx) => messages.withTransaction(tx).append(…)), " +
      "appendMany alike. The same shape of work as Prisma's interactive tx below.",
    engines: ALL,
    usesStoreSchema: true,
    open: (engine, url) => openOursClient(engine, url, 'transaction'),
  },
  {
    key: 'oursClientTxCall',
    label: "nestjs-agent-store, own PrismaClient, its call alone in the app's transaction",
    description:
      "The same transactions, timed on another clock: only the store's call inside each (from the call to its return: the search for the driver's transaction, the savepoint, the statements), " +
      "not the app's BEGIN and COMMIT around it, which the app pays with or without the store. The url mode's own BEGIN and COMMIT count in its cells. No concurrent rows (their calls overlap).",
    engines: ALL,
    usesStoreSchema: true,
    open: (engine, url) => openOursClient(engine, url, 'call'),
  },
  {
    key: 'raw',
    label: 'raw driver (reference)',
    description:
      "better-sqlite3, pg or mariadb (pools of 10) on the store's tables doing the same atomic work: BEGIN (IMMEDIATE on SQLite); UPDATE the thread's last_seq by n (RETURNING, or LAST_INSERT_ID on MariaDB); one INSERT of the rows; COMMIT. " +
      'Its thread row exists beforehand and it checks no tombstone (the store creates the thread on the first append and refuses deleted ones); ' +
      'on the first-append rows it inserts the thread row instead, in the same transaction (BEGIN; INSERT thread; INSERT message; COMMIT). ' +
      "On PostgreSQL its hot statements (appends, history, count) are named, each prepared once per connection, as the store's are. " +
      "Reads send the store's statements and build the same objects: a history one statement (a count too, but on MariaDB); the others in one snapshot (repeatable read; a deferred transaction on SQLite); " +
      'an agent turn is the fewest statements by hand (bench/targets/raw-turns.ts): the history, then each write one atomic statement on PostgreSQL, a transaction of two on SQLite and MariaDB, the header with the answer; ' +
      "deleteTranscript sends the store's statements; on SQLite, deleteTranscript and pruneTranscript end as the store's erasing calls do, by rebuilding the file (VACUUM, on the process's own thread) and checkpointing its log (wal_checkpoint(TRUNCATE)); a fork reads the source's latest boundary, then inserts the thread row and copies that boundary and the log rows after its cut by INSERT … SELECT, in one transaction (the store also reads the source's history and checks what it copied).",
    engines: ALL,
    usesStoreSchema: true,
    open: async (engine, url) => openRaw(engine, url, 'atomic'),
  },
  {
    key: 'rawPlain',
    label: 'raw driver, plain INSERT (floor)',
    description:
      'One autocommitted INSERT per call (multi-row for a batch), the sequence counted in memory: nothing atomic, the floor of what a write costs; ' +
      "a first append sends two, the thread's and the message's.",
    engines: ALL,
    usesStoreSchema: true,
    open: async (engine, url) => openRaw(engine, url, 'plain'),
  },
  {
    key: 'prismaCreate',
    label: 'Prisma 7, plain create',
    description:
      "The store's generated client on Prisma's stock adapters (the SQLite one given the same pragmas): agentMessage.create / createMany with the sequence counted in memory; reads are findMany of the thread's rows.",
    engines: ALL,
    usesStoreSchema: true,
    open: (engine, url) => openPrisma(engine, url, 'create'),
  },
  {
    key: 'prismaTx',
    label: 'Prisma 7, interactive tx',
    description: "The same client: $transaction(async tx => { update the thread's lastSeq by n; create / createMany }), the obvious atomic Prisma path.",
    engines: ALL,
    usesStoreSchema: true,
    open: (engine, url) => openPrisma(engine, url, 'transaction'),
  },
  {
    key: 'mastra',
    label: 'Mastra storage',
    description:
      '@mastra/libsql (SQLite through libsql, its own SQLite build, given the same pragmas) and @mastra/pg: saveThread once, saveMessages per call, getMessages with selectBy.last covering the thread. Mastra assigns no sequence number. It has no MySQL storage.',
    engines: ['sqlite', 'postgresql'],
    usesStoreSchema: false,
    open: openMastra,
  },
  {
    key: 'langgraph',
    label: 'LangGraph official checkpointer',
    description:
      '@langchain/langgraph-checkpoint-sqlite (on better-sqlite3, given the same pragmas) and -postgres (its own pg pool), in a LangGraph step: getTuple, then put a checkpoint whose state holds ' +
      "the whole message list and the agent's instructions (about 2 KB, unchanged after the first step), naming the channels that changed. No MySQL checkpointer.",
    engines: ['sqlite', 'postgresql'],
    usesStoreSchema: false,
    open: openLangGraph,
  },
  {
    key: 'langgraphOurs',
    label: 'nestjs-agent-store LangGraphCheckpointer',
    description:
      "The store's LangGraphCheckpointer (StoreModule.forRoot({ url, migrate: true }) and the provider, booted as docs/frameworks/langgraph.md shows) in the same step.",
    engines: ALL,
    usesStoreSchema: false,
    open: openLangGraphOurs,
  },
];

/** Every column of the tables, in order: the targets', and after the store's the store given a hot standby, which only the replica rows have (bench/targets/replica.ts). */
export const COLUMNS: Column[] = [
  TARGET_KINDS[0],
  {
    key: 'oursReplica',
    label: 'nestjs-agent-store, reading from the replica',
    description:
      'The replica rows only: StoreModule.forRoot({ url: primary, replicas: [standby], migrate: true }), which serves SessionStore.list, exportJsonl and MessageStore.getTranscriptPage ' +
      "from the standby once it has replayed the store's own last write (else from the primary); beside it, the same store without replicas, and the raw driver reading the standby.",
  },
  ...TARGET_KINDS.slice(1),
];
