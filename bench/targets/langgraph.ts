// LangGraph's checkpointers in the loop a LangGraph agent runs per step: load
// the thread's latest checkpoint, append the message to the state's message
// list, store the new checkpoint. That stores the whole list at every step, so
// an append costs more the longer the thread is: not comparable with a store
// that appends a row, and measured for the sequential loop only.
import { emptyCheckpoint, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { SQLITE_PRAGMAS } from '../databases.js';
import type { BenchMessage, Engine, Target } from './target.js';

export async function openLangGraph(engine: Engine, url: string): Promise<Target> {
  let saver: SqliteSaver | PostgresSaver;
  let close: () => Promise<void>;
  if (engine === 'sqlite') {
    const db = new Database(url.slice('file:'.length));
    db.exec(SQLITE_PRAGMAS);
    saver = new SqliteSaver(db);
    close = async () => {
      db.close();
    };
  } else if (engine === 'postgresql') {
    const postgres = PostgresSaver.fromConnString(url);
    await postgres.setup();
    saver = postgres;
    close = () => postgres.end();
  } else {
    throw new Error('LangGraph has no MySQL checkpointer');
  }

  const configOf = (threadId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
  const messagesOf = (checkpoint: Checkpoint | undefined) => (checkpoint?.channel_values.messages as BenchMessage[] | undefined) ?? [];

  return {
    async append(threadId: string, message: BenchMessage) {
      const latest = await saver.getTuple(configOf(threadId));
      const step = (latest?.metadata?.step ?? -1) + 1;
      const checkpoint: Checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { messages: [...messagesOf(latest?.checkpoint), message] },
        channel_versions: { messages: step + 1 },
      };
      await saver.put(latest?.config ?? configOf(threadId), checkpoint, { source: 'update', step, parents: {} }, { messages: step + 1 });
    },
    stored: async (threadId) => messagesOf((await saver.getTuple(configOf(threadId)))?.checkpoint).length,
    close,
  };
}
