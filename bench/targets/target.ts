// What every implementation under test offers the workloads. A target leaves
// out what it cannot do comparably; the table shows those cells as empty.

import type { AgentTurn } from '../turn.js';

export type Engine = 'sqlite' | 'postgresql' | 'mysql';

/** A message as an agent appends it: about 200 bytes of JSON once stored. */
export interface BenchMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** One page of session headers; `next` is the target's own cursor, opaque to the harness. */
export interface SessionPage {
  sessions: unknown[];
  next: unknown;
}

export interface Target {
  /** Whatever the implementation needs before a thread takes appends (the references create the thread row). */
  prepareThread?(threadId: string): Promise<void>;
  append?(threadId: string, message: BenchMessage): Promise<void>;
  /** Appends the first message of a thread that does not exist yet (the references insert the thread row with it). */
  appendFirst?(threadId: string, message: BenchMessage): Promise<void>;
  appendMany?(threadId: string, messages: BenchMessage[]): Promise<void>;
  /**
   * An agent turn on the conversation `threadId` (bench/turn.ts): its history loaded, the user's message, each
   * tool step's call and result, the answer and the session's header stored, as the target's users store them.
   * The first turn of a conversation creates it.
   */
  turn?(threadId: string, turn: AgentTurn): Promise<void>;
  /** A LangGraph checkpointer's step: the thread's latest checkpoint read, a new one stored whose message list holds `message` too. */
  step?(threadId: string, message: BenchMessage): Promise<void>;
  /** How many messages the thread holds, so that every acknowledged append is checked to be there. */
  stored?(threadId: string): Promise<number>;
  /**
   * Milliseconds on the target's own clock, when its write rates count only part of each call's time
   * (the store's calls in the app's transaction, without that transaction's BEGIN and COMMIT). Such a
   * target has no concurrent rows: its calls' times overlap there.
   */
  clock?(): number;
  /** The thread's effective history. */
  getHistory?(threadId: string): Promise<unknown[]>;
  /** The length of the effective history. */
  count?(threadId: string): Promise<number>;
  /** Seeding only: the store writes the compaction boundary itself, so its row is exactly the store's. */
  compact?(threadId: string, summary: BenchMessage, sourceMessageCount: number): Promise<void>;
  /**
   * Deletes what the thread's latest boundary made unreachable (MessageStore.pruneTranscript; the raw
   * driver: the same rows in one transaction) and says how many messages and boundaries went.
   */
  pruneTranscript?(threadId: string): Promise<{ messages: number; boundaries: number }>;
  /**
   * Copies the source's effective history into a new session `forkId` (SessionStore.fork; the raw driver:
   * the thread row, the latest boundary and the log rows after its cut, by INSERT … SELECT in one transaction).
   */
  fork?(sourceId: string, forkId: string): Promise<void>;
  /** Deletes a session and its subtree in one transaction. */
  deleteTranscript?(rootId: string): Promise<void>;
  /** Session headers, newest first, after `cursor`. */
  listSessions?(limit: number, cursor?: unknown): Promise<SessionPage>;
  /** The session as JSONL lines, header first (SessionStore.exportJsonl), read from one snapshot. */
  exportJsonl?(sessionId: string): Promise<string[]>;
  /** Up to `limit` messages of the transcript (every message, in append order) after `cursor` (the target's own; undefined: from the start). */
  transcriptPage?(threadId: string, limit: number, cursor?: unknown): Promise<{ messages: unknown[]; next: unknown }>;
  /**
   * The same target as one tenant sees it: the store's TenantStores.forTenant, the raw
   * driver's statements with the tenant condition. Its prepareThread creates the thread in
   * the tenant (the store's scoped sessions.create); closing it leaves the target open.
   */
  forTenant?(tenantId: string): Target;
  /** Settings the target ran with that the table should mention (read after the run). */
  notes?(): Promise<string[]>;
  close(): Promise<void>;
}

/** A column of the tables. */
export interface Column {
  key: TargetKey;
  label: string;
  /** What it does, for the legend under the tables. */
  description: string;
}

/** A column of every database's table: one implementation, opened once per database it runs on. */
export interface TargetKind extends Column {
  engines: Engine[];
  /** Writes into the store's tables, which the harness creates first from the shipped migrations. */
  usesStoreSchema: boolean;
  /** Opens the target on `url` (file:… for SQLite). */
  open(engine: Engine, url: string): Promise<Target>;
}

export type TargetKey =
  | 'ours'
  | 'oursReplica'
  | 'oursClient'
  | 'oursClientTx'
  | 'oursClientTxCall'
  | 'raw'
  | 'rawPlain'
  | 'prismaCreate'
  | 'prismaTx'
  | 'mastra'
  | 'langgraph'
  | 'langgraphOurs';
