// What the raw references hand back: the same objects the store returns, built
// from the same rows, so that reading costs what the store's reads cost.
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
