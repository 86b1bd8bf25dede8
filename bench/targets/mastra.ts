// Mastra's storage, the way a Mastra agent's memory uses it: saveThread once,
// saveMessages per step (one message, or a batch), getMessages to reload.
// @mastra/libsql on SQLite (its own driver, libsql, given the store's pragmas)
// and @mastra/pg on PostgreSQL; Mastra has no MySQL storage. The 0.x line is
// the one that runs on Node 20 (1.x needs Node 22).
import { randomUUID } from 'node:crypto';
import { createClient, type Client } from '@libsql/client';
import type { MastraMessageV2 } from '@mastra/core/agent';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import { countStatements } from '../statements.js';
import type { AgentTurn, TurnMessage } from '../turn.js';
import type { BenchMessage, Engine, Target } from './target.js';

const RESOURCE = 'bench';
/** getMessages reads the last `last` messages (40 unless told): ask for all of them. */
const ALL = 2 ** 31 - 1;

export async function openMastra(engine: Engine, url: string): Promise<Target> {
  let store: LibSQLStore | PostgresStore;
  let notes = async (): Promise<string[]> => [];
  let closeClient: () => Promise<void>;
  if (engine === 'sqlite') {
    const client = counted(createClient({ url }));
    // LibSQLStore sets WAL and a busy timeout itself when given a url; given a client, it gets the store's settings.
    for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 10000', 'secure_delete = ON']) await client.execute(`PRAGMA ${pragma}`);
    store = new LibSQLStore({ client });
    notes = async () => {
      const value = async (sql: string) => String((await client.execute(sql)).rows[0][0]);
      const version = await value('SELECT sqlite_version()');
      const journal = await value('PRAGMA journal_mode');
      const synchronous = await value('PRAGMA synchronous');
      return [`libsql (SQLite ${version}), at the end of the run journal_mode=${journal}, synchronous=${synchronous} (1 = NORMAL)`];
    };
    closeClient = async () => client.close();
  } else if (engine === 'postgresql') {
    const pg = new PostgresStore({ connectionString: url, max: 10 });
    store = pg;
    // close() only starts ending the pool; its connections must be gone before the server stops.
    closeClient = () => pg.db.$pool.end();
  } else {
    throw new Error('Mastra has no MySQL storage');
  }
  await store.init();

  const toMastra = (threadId: string, message: BenchMessage): MastraMessageV2 => ({
    id: randomUUID(),
    threadId,
    resourceId: RESOURCE,
    role: message.role,
    type: 'v2',
    createdAt: new Date(),
    content: { format: 2, parts: [{ type: 'text', text: message.content }] },
  });
  const getMessages = (threadId: string) => store.getMessages({ threadId, resourceId: RESOURCE, selectBy: { last: ALL }, format: 'v2' });

  const saveThread = async (threadId: string) => {
    const now = new Date();
    await store.saveThread({ thread: { id: threadId, resourceId: RESOURCE, title: threadId, metadata: {}, createdAt: now, updatedAt: now } });
  };
  const save = (threadId: string, messages: TurnMessage[]) =>
    store.saveMessages({ messages: messages.map((message) => turnMessage(threadId, message)), format: 'v2' });

  return {
    prepareThread: saveThread,
    /** The turn on Mastra's storage API: the thread looked up (and created on the first turn), its messages read, each write saved, the thread updated. */
    async turn(threadId: string, turn: AgentTurn) {
      if (!(await store.getThreadById({ threadId }))) await saveThread(threadId);
      await getMessages(threadId);
      await save(threadId, [turn.user]);
      for (const step of turn.steps) await save(threadId, step);
      await save(threadId, [turn.answer]);
      await store.updateThread({ id: threadId, title: turn.header.title, metadata: turn.header.metadata });
    },
    async append(threadId: string, message: BenchMessage) {
      await store.saveMessages({ messages: [toMastra(threadId, message)], format: 'v2' });
    },
    async appendMany(threadId: string, messages: BenchMessage[]) {
      await store.saveMessages({ messages: messages.map((message) => toMastra(threadId, message)), format: 'v2' });
    },
    stored: async (threadId) => (await getMessages(threadId)).length,
    getHistory: getMessages,
    notes,
    close: closeClient,
  };
}

/** A turn's message in Mastra's format: text parts, and tool invocations (the call, then its result). */
function turnMessage(threadId: string, message: TurnMessage): MastraMessageV2 {
  const part = (): MastraMessageV2['content']['parts'][number] => {
    if (typeof message.content === 'string') return { type: 'text', text: message.content };
    const [content] = message.content;
    if (content.type === 'tool-call')
      return { type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: content.toolCallId, toolName: content.toolName, args: content.input } };
    return {
      type: 'tool-invocation',
      toolInvocation: { state: 'result', toolCallId: content.toolCallId, toolName: content.toolName, args: {}, result: content.output.value },
    };
  };
  return {
    id: randomUUID(),
    threadId,
    resourceId: RESOURCE,
    role: message.role === 'user' ? 'user' : 'assistant',
    type: 'v2',
    createdAt: new Date(),
    content: { format: 2, parts: [part()] },
  };
}

/** libsql's client, its statements counted (see countStatements): a batch runs in a transaction of its own, BEGIN and COMMIT included. */
function counted(client: Client): Client {
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  client.execute = ((...args: Parameters<Client['execute']>) => (countStatements(1), execute(...args))) as Client['execute'];
  client.batch = ((...args: Parameters<Client['batch']>) => (countStatements(args[0].length + 2), batch(...args))) as Client['batch'];
  return client;
}
