// SQL that more than one database speaks alike, for the kits to share.
import { insertRuns, textLength } from './insert-runs.js';
import { MESSAGE_COLUMNS, messageColumns } from './row-codec.js';
import type { SessionListQuery } from './tables/session-list.js';
import type { Message } from '../message.types.js';
import type { PrismaTx } from './store-client.js';
import type { Arg } from './adapter-statement.js';
import type { SessionUpdate } from '../session.types.js';

/** PostgreSQL and SQLite: an INSERT's clause for a taken key (see Dialect.onConflict). */
export const onConflictDo = (keys: string[], update: string[]): string =>
  `ON CONFLICT (${keys.join(', ')}) ${update.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${update.map((column) => `${column} = excluded.${column}`).join(', ')}`}`;

/** PostgreSQL and SQLite: DO NOTHING takes no lock on an existing row. */
export async function insertIfMissing(tx: PrismaTx, id: string, now: Date): Promise<boolean> {
  const inserted =
    await tx.$executeRaw`INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (${id}, 0, ${now}, ${now}) ON CONFLICT (id) DO NOTHING`;
  return inserted > 0;
}

/** Whether the thread has a tombstone, in the transaction's snapshot. */
export async function tombstoneExists(tx: PrismaTx, id: string): Promise<boolean> {
  return (await tx.agentTombstone.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** PostgreSQL and SQLite (3.35+) upsert and return in one statement. */
export async function upsertReturning(tx: PrismaTx, threadId: string, count: number, now: Date): Promise<number> {
  const rows = await tx.$queryRaw<{ last_seq: number | bigint }[]>`
    INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (${threadId}, ${count}, ${now}, ${now})
    ON CONFLICT (id) DO UPDATE SET last_seq = agent_thread.last_seq + ${count}, updated_at = ${now}
    RETURNING last_seq`;
  return Number(rows[0].last_seq);
}

/** PostgreSQL and MySQL: row locks, taken in id order so that two lockers never wait on each other crosswise. */
export const selectForUpdate =
  (placeholder: (i: number) => string) =>
  async (tx: PrismaTx, ids: string[]): Promise<void> => {
    if (ids.length === 0) return;
    const list = ids.map((_, i) => placeholder(i)).join(', ');
    await tx.$queryRawUnsafe(`SELECT id FROM agent_thread WHERE id IN (${list}) ORDER BY id FOR UPDATE`, ...ids);
  };

/** PostgreSQL and MySQL: locks a session and its whole subtree, so that no edge below it changes until the transaction ends. */
export async function lockSubtreeForUpdate(tx: PrismaTx, id: string): Promise<void> {
  await tx.$queryRaw`
    SELECT id FROM agent_thread WHERE id IN (
      WITH RECURSIVE down (id) AS (SELECT id FROM agent_thread WHERE id = ${id} UNION ALL SELECT e.child_id FROM agent_subsession e JOIN down ON e.parent_id = down.id)
      SELECT id FROM down)
    ORDER BY id FOR UPDATE`;
}

/** The columns of a session header, in the order `sessionOf` reads them. */
export const SESSION_COLUMNS = 't.id, t.tenant_id, t.title, t.metadata, t.created_at, t.updated_at, e.parent_id, t.forked_from, t.fork_seq';

/**
 * A page of sessions, newest first, as one statement: each filter a condition,
 * the cursor a keyset bound on (created_at, id), one row more than the page to
 * tell whether another follows. `placeholder(i)` spells the i-th parameter.
 */
export function listSessionsSql(query: SessionListQuery, placeholder: (i: number) => string): { text: string; args: Arg[] } {
  const args: Arg[] = [];
  const param = (value: Arg) => placeholder(args.push(value) - 1);
  const where: string[] = [];
  if (query.tenantId !== undefined) where.push(`t.tenant_id = ${param(query.tenantId)}`);
  if (query.parentId !== undefined) where.push(`e.parent_id = ${param(query.parentId)}`);
  if (query.forkedFrom !== undefined) where.push(`t.forked_from = ${param(query.forkedFrom)}`);
  if (query.createdAfter !== undefined) where.push(`t.created_at > ${param(query.createdAfter)}`);
  if (query.createdBefore !== undefined) where.push(`t.created_at < ${param(query.createdBefore)}`);
  if (query.search !== undefined) {
    // LOWER on both sides: MySQL's ids and titles compare byte for byte (utf8mb4_bin), PostgreSQL's LIKE minds case.
    const pattern = `%${query.search.replace(/[!%_]/g, '!$&')}%`;
    where.push(`(LOWER(t.id) LIKE LOWER(${param(pattern)}) ESCAPE '!' OR LOWER(t.title) LIKE LOWER(${param(pattern)}) ESCAPE '!')`);
  }
  if (query.after !== undefined) {
    const at = param(query.after.createdAt);
    where.push(`(t.created_at < ${at} OR (t.created_at = ${param(query.after.createdAt)} AND t.id < ${param(query.after.id)}))`);
  }
  const text =
    `SELECT ${SESSION_COLUMNS} FROM agent_thread t LEFT JOIN agent_subsession e ON e.child_id = t.id` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY t.created_at DESC, t.id DESC LIMIT ${param(query.limit + 1)}`;
  return { text, args };
}

/** SessionStore.update's UPDATE: the fields given set and updated_at bumped on the thread `id` (scoped: if it is the tenant's). */
export function updateHeaderSql(
  id: string,
  changes: SessionUpdate,
  now: Date,
  tenantId: string | undefined,
  placeholder: (i: number) => string,
): { text: string; args: Arg[] } {
  const args: Arg[] = [];
  const param = (value: Arg) => placeholder(args.push(value) - 1);
  const set = [`updated_at = ${param(now)}`];
  if (changes.title !== undefined) set.push(`title = ${param(changes.title)}`);
  if (changes.metadata !== undefined) set.push(`metadata = ${param(changes.metadata === null ? null : JSON.stringify(changes.metadata))}`);
  const where = `id = ${param(id)}${tenantId === undefined ? '' : ` AND tenant_id = ${param(tenantId)}`}`;
  return { text: `UPDATE agent_thread SET ${set.join(', ')} WHERE ${where}`, args };
}

/** SESSION_COLUMNS as an UPDATE of agent_thread returns them: the parent by a subquery. */
const RETURNED_HEADER = SESSION_COLUMNS.split(', ')
  .map((column) => (column === 'e.parent_id' ? '(SELECT e.parent_id FROM agent_subsession e WHERE e.child_id = agent_thread.id)' : column.slice('t.'.length)))
  .join(', ');

/**
 * SessionStore.update in one statement (PostgreSQL and SQLite 3.35+, whose UPDATE returns rows): updateHeaderSql
 * returning the header as SESSION_COLUMNS; no row when none matched.
 */
export function updateHeaderReturningSql(...args: Parameters<typeof updateHeaderSql>): { text: string; args: Arg[] } {
  const update = updateHeaderSql(...args);
  return { text: `${update.text} RETURNING ${RETURNED_HEADER}`, args: update.args };
}

const INSERTS = new Map<number, string>();

/** The INSERT of `rows` messages with `?` placeholders, its text made once per size (statement caches are keyed by it). */
function insertMessagesSql(rows: number): string {
  let text = INSERTS.get(rows);
  if (!text)
    INSERTS.set(
      rows,
      (text = `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS}) VALUES ${Array(rows)
        .fill(
          `(?, ?, ${MESSAGE_COLUMNS.split(', ')
            .map(() => '?')
            .join(', ')})`,
        )
        .join(', ')}`),
    );
  return text;
}

/**
 * The INSERTs of `messages` at seqs from `first` on, with `?` placeholders: one
 * for a batch of normal size, several for a long one (see insertRuns), to run
 * in order in one transaction.
 */
export function messageInserts(threadId: string, first: number, messages: Message[]): { text: string; args: Arg[] }[] {
  let seq = first;
  return insertRuns(messages.map(messageColumns), textLength).map((run) => ({
    text: insertMessagesSql(run.length),
    args: run.flatMap((columns) => [threadId, seq++, ...columns]),
  }));
}
