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
 * How a driver hands back JSON columns: text to parse (better-sqlite3), or
 * parsed already (node-postgres for jsonb, the mariadb connector for MariaDB's JSON).
 */
export type JsonColumn = (value: unknown) => unknown;
export const parseJson: JsonColumn = (value) => JSON.parse(value as string);
export const parsedJson: JsonColumn = (value) => value;

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

/** The content column's value for a message: its JSON text. */
export const contentJson = (message: BenchMessage) => JSON.stringify(message.content);
