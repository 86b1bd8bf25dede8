// PostgreSQL's fast paths: one statement each, straight on Prisma's pg adapter
// (one pool with the client). A statement sees one snapshot, so a read needs no
// transaction; an append of a batch of normal size to an existing thread is one round trip.
import type { SqlDriverAdapter, SqlQueryable, Transaction } from '@prisma/driver-adapter-utils';
import { insertRuns, textLength } from '../../engine/insert-runs.js';
import { historyOf, MESSAGE_COLUMNS, messageColumns } from '../../engine/row-codec.js';
import { StoreNotFoundError } from '../../store.errors.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { BrokenHostTransaction, inSavepoint, sql, type Arg, type Row } from '../../engine/adapter-statement.js';
import { listSessionsSql } from '../../engine/portable-sql.js';
import type { FastPaths } from '../../engine/provider-kit.js';

/** How PostgreSQL spells a statement's i-th parameter (from 0). */
export const placeholder = (index: number) => `$${index + 1}`;
import { inOwnTransaction } from '../../engine/adapter-transactions.js';

// The thread is $1 and, scoped, the tenant $2. PostgreSQL bounds the index range
// on (thread_id, seq) with a one-row CTE joined to the log (with a scalar
// subquery it may scan the thread when its estimates say so).
// Scoped, the tenant is $2: a one-row CTE says whether the thread is the tenant's,
// and every other branch is gated on it, so another tenant's log is never read.
const OWNED = 'o AS (SELECT 1 FROM agent_thread WHERE id = $1 AND tenant_id = $2)';
const gate = (scoped: boolean) => (scoped ? ' AND EXISTS (SELECT 1 FROM o)' : '');
const ctes = (scoped: boolean, boundaryColumns: string, cut: string) =>
  `WITH ${scoped ? `${OWNED}, ` : ''}b AS (SELECT ${boundaryColumns} FROM agent_boundary WHERE thread_id = $1${gate(scoped)} ORDER BY seq DESC LIMIT 1), c AS (SELECT ${cut} FROM b)`;
const afterCut = (scoped: boolean) => `agent_message m ON m.thread_id = $1 AND m.seq > c.cut AND m.event_type IS NULL${gate(scoped)}`;
/** MESSAGE_COLUMNS of the table alias `alias`. */
const prefixed = (alias: string) =>
  MESSAGE_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
/** Typed NULLs for the text columns of MESSAGE_COLUMNS a row of the UNION does not hold (all but created_at are text). */
const nullTexts = (count: number) => Array(count).fill('NULL::text').join(', ');
const history = (scoped: boolean) => `${ctes(scoped, 'cut_seq, messages', 'COALESCE(MAX(cut_seq), 0) AS cut')}
  ${scoped ? `SELECT -1 AS part, NULL::integer, ${nullTexts(6)}, NULL::timestamp(3) FROM o UNION ALL` : ''}
  SELECT 0 AS part, NULL::integer, NULL::text, b.messages, ${nullTexts(4)}, NULL::timestamp(3) FROM b
  UNION ALL
  SELECT 1, m.seq, ${prefixed('m')} FROM c JOIN ${afterCut(scoped)}
  ORDER BY 1, 2`;
const count = (scoped: boolean) => `${ctes(scoped, 'cut_seq, message_count', 'COALESCE(MAX(cut_seq), 0) AS cut, COALESCE(MAX(message_count), 0) AS replaced')}
  SELECT ${scoped ? '(SELECT COUNT(*) FROM o)' : '1'}, c.replaced + COUNT(m.seq) FROM c LEFT JOIN ${afterCut(scoped)} GROUP BY c.replaced`;
/** The read statements, exported for the query-plan tests. */
export const STATEMENTS = {
  history: history(false),
  scopedHistory: history(true),
  count: count(false),
  scopedCount: count(true),
};

/** Messages as a VALUES list of (ord, MESSAGE_COLUMNS), given as their messageColumns, the arguments pushed onto `args`. */
function messageValues(run: Arg[][], args: Arg[]): string {
  return run
    .map((columns, i) => {
      const at = args.length;
      args.push(...columns);
      return `(${i + 1}, ${columns.map((_, c) => `$${at + c + 1}${c === columns.length - 1 ? '::timestamp(3)' : ''}`).join(', ')})`;
    })
    .join(', ');
}

/** Inserts the messages of `values` after the last_seq of `source` less $2 (the count), returning their seqs. */
const insertFrom = (source: string, values: string) =>
  `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
   SELECT $1, ${source}.last_seq - $2 + m.ord, ${prefixed('m')}
   FROM ${source}, (VALUES ${values}) AS m (ord, ${MESSAGE_COLUMNS})
   RETURNING seq`;

/** Inserts the messages of `values` after seq $2: the runs of a long batch after its first. */
const insertAfter = (values: string) =>
  `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
   SELECT $1, $2 + m.ord, ${prefixed('m')}
   FROM (VALUES ${values}) AS m (ord, ${MESSAGE_COLUMNS})`;

/** Creates the thread holding $2, or bumps its counter by $2. */
const UPSERT_THREAD = `upserted AS (INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES ($1, $2, $3, $3)
  ON CONFLICT (id) DO UPDATE SET last_seq = agent_thread.last_seq + EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at RETURNING last_seq)`;
/** Bumps the counter of the thread if it is the tenant $4's. */
const BUMP_TENANTS_THREAD = 'bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1 AND tenant_id = $4 RETURNING last_seq)';

/**
 * An append of several statements: a new thread's first append, or any append
 * of a long batch (several runs, see insertRuns). Unscoped, the thread is
 * upserted with the first run, then its tombstone read in a snapshot taken
 * after the row's lock, so that a delete that committed meanwhile is seen and
 * the thread does not come back. Scoped, only the tenant's thread is bumped:
 * null when there is none (to be rolled back). The later runs follow on `tx`.
 */
async function appendRuns(
  tx: SqlQueryable,
  threadId: string,
  runs: Arg[][][],
  now: Date,
  tenantId: string | undefined,
  isDeleted: (tx: SqlQueryable, threadId: string, now: Date) => Promise<boolean> = tombstoneRead,
): Promise<number | null> {
  const [first, ...rest] = runs;
  const count = runs.reduce((sum, run) => sum + run.length, 0);
  const args: Arg[] = tenantId === undefined ? [threadId, count, now] : [threadId, count, now, tenantId];
  const values = messageValues(first, args);
  const [counter, source] = tenantId === undefined ? [UPSERT_THREAD, 'upserted'] : [BUMP_TENANTS_THREAD, 'bumped'];
  // The counter's new value (null: not the tenant's thread); the INSERT runs whether or not the SELECT reads it.
  const [[last]] = (await tx.queryRaw(sql(`WITH ${counter}, inserted AS (${insertFrom(source, values)}) SELECT (SELECT last_seq FROM ${source})`, args))).rows;
  if (tenantId === undefined && (await isDeleted(tx, threadId, now))) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
  if (last === null) return null;
  let after = Number(last) - count + first.length;
  for (const run of rest) {
    const runArgs: Arg[] = [threadId, after];
    await tx.executeRaw(sql(insertAfter(messageValues(run, runArgs)), runArgs));
    after += run.length;
  }
  return Number(last);
}

/** The tombstone as the statement's snapshot holds it: at READ COMMITTED, every delete that committed before it. */
const tombstoneRead = async (tx: SqlQueryable, threadId: string) =>
  (await tx.queryRaw(sql('SELECT 1 FROM agent_tombstone WHERE id = $1', [threadId]))).rows.length > 0;

/**
 * The tombstone as last committed, at any level. In an application's transaction at REPEATABLE READ
 * or SERIALIZABLE, a read sees the transaction's snapshot, which may predate the delete; an insert
 * of the tombstone meets it whatever the snapshot, and fails (40001: StoreBusyError) when the snapshot
 * cannot see it. The insert, when nothing was there, is taken back at once.
 */
export const TOMBSTONE_PROBE = {
  insert: 'INSERT INTO agent_tombstone (id, deleted_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING 1',
  undo: 'DELETE FROM agent_tombstone WHERE id = $1',
};

async function deletedSinceAnySnapshot(tx: SqlQueryable, threadId: string, now: Date): Promise<boolean> {
  if ((await tx.queryRaw(sql(TOMBSTONE_PROBE.insert, [threadId, now]))).rows.length === 0) return true;
  await tx.executeRaw(sql(TOMBSTONE_PROBE.undo, [threadId]));
  return false;
}

/**
 * A batch of normal size to an existing thread, in one statement: a CTE bumps the counter, locking the
 * row, and the INSERT reads the new value. A missing, deleted or other tenant's thread matches no row and
 * nothing is written (`last` null). Then the statement also reports a tombstone its snapshot holds, so that
 * an append to a thread deleted earlier fails at once; one deleted while it waited is caught by appendRuns.
 */
async function appendToExisting(
  tx: SqlQueryable,
  threadId: string,
  run: Arg[][],
  now: Date,
  tenantId: string | undefined,
): Promise<{ last: number | null; deleted: boolean }> {
  const args: Arg[] = [threadId, run.length, now];
  const tenant = tenantId === undefined ? '' : ` AND tenant_id = $${args.push(tenantId)}`;
  const values = messageValues(run, args);
  const [[last, deleted]] = (
    await tx.queryRaw(
      sql(
        `WITH bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1${tenant} RETURNING last_seq),
           inserted AS (${insertFrom('bumped', values)})
         SELECT (SELECT MAX(seq) FROM inserted), CASE WHEN NOT EXISTS (SELECT 1 FROM bumped) THEN EXISTS (SELECT 1 FROM agent_tombstone WHERE id = $1) END`,
        args,
      ),
    )
  ).rows;
  return { last: last === null ? null : Number(last), deleted: Boolean(deleted) };
}

/** Runs `work` on a transaction all or nothing, keeping nothing when it returns null. */
type Atomically = (work: (tx: SqlQueryable) => Promise<number | null>) => Promise<number | null>;

/** A transaction of its own on a connection of the pool, at the server's default level. */
const inTransaction =
  (adapter: SqlDriverAdapter): Atomically =>
  (work) =>
    inOwnTransaction(adapter, undefined, work);

/**
 * The fast paths on the pool under Prisma's pg adapter. A batch of normal size to an existing thread is
 * one statement, which needs no transaction; a first append or a long batch is a transaction of its own.
 */
export function postgresFastPaths(adapter: SqlDriverAdapter): FastPaths {
  const atomically = inTransaction(adapter);
  return {
    ...readsOn(adapter),
    async append(threadId, messages, now, tenantId) {
      const runs = insertRuns(messages.map(messageColumns), textLength);
      if (runs.length > 1) return atomically((tx) => appendRuns(tx, threadId, runs, now, tenantId));
      const { last, deleted } = await appendToExisting(adapter, threadId, runs[0], now, tenantId);
      if (last !== null || tenantId !== undefined) return last;
      if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
      return atomically((tx) => appendRuns(tx, threadId, runs, now, undefined));
    },
  };
}

/**
 * The fast paths in the application's transaction `tx` (the driver's transaction under Prisma's): the
 * same statements; reads see the transaction's own writes. `assertOpen` before each statement (see
 * ProviderKit). An append of one statement (a batch of normal size to an existing thread, without
 * message ids) is all or nothing by itself and takes no savepoint (two round trips fewer): should the
 * database fail it, PostgreSQL ends the transaction, as it does for any failed statement, and the
 * store's later calls there refuse. Every other append runs in a savepoint, so that its failure (a
 * lost race for a message id, a deleted thread found after the upsert) leaves the transaction usable.
 * A thread created in the transaction has its tombstone looked for by a write (deletedSinceAnySnapshot).
 */
export function postgresHostFastPaths(transaction: Transaction, assertOpen: () => void): FastPaths {
  const tx: SqlQueryable = {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    queryRaw: async (query) => (assertOpen(), transaction.queryRaw(query)),
    executeRaw: async (query) => (assertOpen(), transaction.executeRaw(query)),
  };
  const inSavepointOnTx = (work: () => Promise<number | null>) => inSavepoint((statement) => tx.executeRaw(sql(statement, [])), work);
  return {
    ...readsOn(tx),
    async append(threadId, messages, now, tenantId) {
      const runs = insertRuns(messages.map(messageColumns), textLength);
      if (runs.length === 1 && messages.every((message) => message.id === undefined)) {
        const { last, deleted } = await appendToExisting(tx, threadId, runs[0], now, tenantId).catch((error: unknown) => {
          throw error instanceof BrokenHostTransaction
            ? error
            : new BrokenHostTransaction('a store write failed in your transaction, which PostgreSQL then ended', error);
        });
        if (last !== null || tenantId !== undefined) return last;
        if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
        // The thread does not exist (or was deleted while the statement waited): nothing was written.
        return inSavepointOnTx(() => appendRuns(tx, threadId, runs, now, undefined, deletedSinceAnySnapshot));
      }
      return inSavepointOnTx(async () => {
        if (runs.length === 1) {
          const { last, deleted } = await appendToExisting(tx, threadId, runs[0], now, tenantId);
          if (last !== null || tenantId !== undefined) return last;
          if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
        }
        return appendRuns(tx, threadId, runs, now, tenantId, deletedSinceAnySnapshot);
      });
    },
  };
}

/** The reads: one statement each, one snapshot. */
function readsOn(db: SqlQueryable): Omit<FastPaths, 'append'> {
  const rows = async (text: string, args: Arg[]): Promise<Row[]> => (await db.queryRaw(sql(text, args))).rows;
  return {
    async history(threadId, tenantId) {
      if (tenantId === undefined) return historyOf(await rows(STATEMENTS.history, [threadId]));
      const read = await rows(STATEMENTS.scopedHistory, [threadId, tenantId]);
      return Number(read[0]?.[0]) === -1 ? historyOf(read.slice(1)) : null;
    },

    async count(threadId, tenantId) {
      const [[owned, total]] = await rows(
        tenantId === undefined ? STATEMENTS.count : STATEMENTS.scopedCount,
        tenantId === undefined ? [threadId] : [threadId, tenantId],
      );
      return Number(owned) === 0 ? null : Number(total);
    },

    async listSessions(query) {
      const { text, args } = listSessionsSql(query, placeholder);
      return (await rows(text, args)).map(sessionOf);
    },
  };
}
