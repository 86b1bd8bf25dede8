// What the raw references hand back: the same objects the store returns, built
// from the same rows, so that reading costs what the store's reads cost; and
// the store's statements for the rows they read and the subtrees they delete.
import type { BenchMessage } from './target.js';

export interface MessageRow {
  seq: number;
  role: string;
  content: unknown;
  message_id: string | null;
  metadata: unknown;
  created_at: Date;
}

export interface SessionRow {
  id: string;
  tenant_id: string | null;
  title: string | null;
  metadata: unknown;
  created_at: Date;
  updated_at: Date;
  parent_id: string | null;
}

/** The rows of SessionRow: a session and its parent, if any. */
export const SESSION_SELECT =
  'SELECT t.id, t.tenant_id, t.title, t.metadata, t.created_at, t.updated_at, e.parent_id FROM agent_thread t LEFT JOIN agent_subsession e ON e.child_id = t.id';

/** The subtree walk of the store's deleteTranscript, from a root found in `table`; `root` is the driver's placeholder for its id. */
export const subtree = (table: string, root = '?') =>
  `WITH RECURSIVE down (id) AS (SELECT id FROM ${table} WHERE id = ${root} UNION ALL SELECT e.child_id FROM agent_subsession e JOIN down ON e.parent_id = down.id)`;

/**
 * The latest boundary's columns (`cut_seq, …`) of the thread `id`. With `tenant` (its
 * placeholder), the thread row joined under the tenant condition: no row at all when the
 * thread is not the tenant's, one row of NULLs when it is and has no boundary.
 */
export function latestBoundary(columns: string, id = '?', tenant?: string): string {
  if (tenant === undefined) return `SELECT ${columns} FROM agent_boundary WHERE thread_id = ${id} ORDER BY seq DESC LIMIT 1`;
  const joined = columns
    .split(', ')
    .map((column) => `b.${column}`)
    .join(', ');
  return `SELECT ${joined} FROM agent_thread t LEFT JOIN agent_boundary b ON b.thread_id = t.id WHERE t.id = ${id} AND t.tenant_id = ${tenant} ORDER BY b.seq DESC LIMIT 1`;
}

/** The boundary a latestBoundary row stands for (undefined: none); throws when a scoped read found no thread of the tenant. */
export function boundaryOf<T extends { cut_seq: number | null }>(rows: T[], threadId: string, tenant: string | undefined): T | undefined {
  if (tenant !== undefined && rows.length === 0) throw new Error(`thread ${threadId} is not tenant ${tenant}'s`);
  return rows[0]?.cut_seq == null ? undefined : rows[0];
}

/** The thread row as prepareThread and a first append insert it, with its tenant (or NULL): id, tenant_id, last_seq, created_at, updated_at. */
/** The prune's statements (the store's, in one transaction): messages at or below the latest cut, the compactions before it, the repairs' replacements. */
export const LATEST_CUT = (id = '?') => `SELECT seq, cut_seq FROM agent_boundary WHERE thread_id = ${id} ORDER BY seq DESC LIMIT 1`;
export const PRUNE_MESSAGES = (id = '?', cut = '?') => `DELETE FROM agent_message WHERE thread_id = ${id} AND seq <= ${cut} AND event_type IS NULL`;
export const PRUNE_BOUNDARIES = (id = '?', seq = '?') => `DELETE FROM agent_boundary WHERE thread_id = ${id} AND seq < ${seq} AND kind = 'compaction'`;
export const EMPTY_REPAIRS = (id = '?', seq = '?') =>
  `UPDATE agent_boundary SET messages = '[]', message_count = 0 WHERE thread_id = ${id} AND seq < ${seq} AND kind = 'repair' AND message_count > 0`;

/**
 * A fork by hand (what SessionStore.fork copies, in one transaction, after LATEST_CUT): the thread row, dated
 * `now`, naming its source and the seq it was taken at; the source's latest boundary (at `seq`); its log rows
 * after that boundary's cut. The cut is sent as a value, as the store sends it: planned against a subquery's
 * unknown value, PostgreSQL scans the whole source. The placeholders are the driver's: PostgreSQL's are
 * numbered, reused, and cast where a select list would leave them untyped; the others' are sent once each.
 */
export const FORK_THREAD = (fork: string, now: string, source: string) =>
  `INSERT INTO agent_thread (id, tenant_id, title, metadata, last_seq, forked_from, fork_seq, created_at, updated_at) SELECT ${fork}, tenant_id, title, metadata, last_seq, id, last_seq, ${now}, ${now} FROM agent_thread WHERE id = ${source}`;
export const FORK_BOUNDARY = (fork: string, source: string, seq: string) =>
  `INSERT INTO agent_boundary (thread_id, seq, kind, cut_seq, messages, message_count, source_count, retained_count, created_at) SELECT ${fork}, seq, kind, cut_seq, messages, message_count, source_count, retained_count, created_at FROM agent_boundary WHERE thread_id = ${source} AND seq = ${seq}`;
export const FORK_MESSAGES = (fork: string, source: string, cut: string) =>
  `INSERT INTO agent_message (thread_id, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at) SELECT ${fork}, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at FROM agent_message WHERE thread_id = ${source} AND seq > ${cut}`;

export const THREAD_INSERT = (placeholders: string) => `INSERT INTO agent_thread (id, tenant_id, last_seq, created_at, updated_at) VALUES (${placeholders})`;

/** How a driver hands back the JSON text columns: text to parse, on every database. */
export type JsonColumn = (value: unknown) => unknown;
export const parseJson: JsonColumn = (value) => JSON.parse(value as string);

export function toMessage(row: MessageRow, json: JsonColumn) {
  const message: Record<string, unknown> = { seq: row.seq, role: row.role, content: json(row.content), createdAt: row.created_at };
  if (row.message_id !== null) message.id = row.message_id;
  if (row.metadata !== null) message.metadata = json(row.metadata);
  return message;
}

/** A boundary's replacement messages, as the effective history starts with them. */
export function boundaryMessages(messages: unknown, json: JsonColumn): unknown[] {
  return (json(messages) as { createdAt: string }[]).map((message) => ({ ...message, createdAt: new Date(message.createdAt), seq: null }));
}

export function toSession(row: SessionRow, json: JsonColumn) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    title: row.title,
    parentId: row.parent_id,
    metadata: row.metadata === null ? null : json(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A row of a session's log: a message (role set) or an event (event_type set). */
export interface LogRow extends MessageRow {
  event_type: string | null;
}

export interface BoundaryRow {
  seq: number;
  kind: string;
  cut_seq: number;
  messages: unknown;
  source_count: number;
  retained_count: number | null;
  created_at: Date;
  repair_message: unknown;
}

/** The lines of SessionStore.exportJsonl, built from a session's row, its log and boundaries in seq order, and its subsessions' ids. */
export function jsonlLines(
  session: Omit<SessionRow, 'updated_at' | 'parent_id'>,
  log: LogRow[],
  boundaries: BoundaryRow[],
  children: string[],
  json: JsonColumn,
): string[] {
  const line = (value: object) => `${JSON.stringify(value)}\n`;
  const entries: { seq: number; value: object }[] = [
    ...log.map((row) => {
      if (row.event_type !== null)
        return { seq: row.seq, value: { type: 'event', seq: row.seq, event: { type: row.event_type, data: json(row.content) }, createdAt: row.created_at } };
      const message = toMessage(row, json);
      delete message.seq;
      return { seq: row.seq, value: { type: 'message', seq: row.seq, message } };
    }),
    ...boundaries.map((row) => {
      const common = { seq: row.seq, cutSeq: row.cut_seq, messages: json(row.messages), sourceMessageCount: row.source_count };
      const value =
        row.kind === 'repair'
          ? { type: 'repair', ...common, repairMessage: json(row.repair_message), createdAt: row.created_at }
          : { type: 'compaction', ...common, retainedMessageCount: row.retained_count ?? 0, createdAt: row.created_at };
      return { seq: row.seq, value };
    }),
  ].sort((a, b) => a.seq - b.seq);
  const header = {
    type: 'session',
    version: 1,
    id: session.id,
    tenantId: session.tenant_id,
    title: session.title,
    metadata: session.metadata === null ? null : json(session.metadata),
    createdAt: session.created_at,
  };
  return [line(header), ...entries.map((entry) => line(entry.value)), ...children.map((childId) => line({ type: 'subsession', childId }))];
}

/**
 * The rows of the store's own history statement (part, seq, role, content, message_id, metadata, provider_options,
 * value_types, created_at; scoped, first a row of part -1 when the thread is the tenant's), which the raw references
 * send through their drivers (it is the fewest statements there are: one), as the store's objects.
 */
export function historyFromRows(rows: unknown[][], threadId: string, tenant: string | undefined, dateOf: (value: unknown) => Date): unknown[] {
  if (tenant !== undefined && Number(rows[0]?.[0]) !== -1) throw new Error(`thread ${threadId} is not tenant ${tenant}'s`);
  return (tenant === undefined ? rows : rows.slice(1)).flatMap(([part, seq, role, content, messageId, metadata, , , createdAt]) =>
    Number(part) === 0
      ? boundaryMessages(content, parseJson)
      : [
          toMessage(
            { seq: Number(seq), role: role as string, content, message_id: messageId as string | null, metadata, created_at: dateOf(createdAt) },
            parseJson,
          ),
        ],
  );
}

/** The content column's value for a message: its JSON text. */
export const contentJson = (message: BenchMessage) => JSON.stringify(message.content);
