// LangGraph's checkpointers in the loop a LangGraph agent runs per step: load
// the thread's latest checkpoint (getTuple), append the message to the state's
// message list, store the new checkpoint (put). The state is an agent's: the
// message list, which every step changes, and its instructions, which no step
// changes. Each saver versions the channels its own way (getNextVersion), and
// is told which changed (put's newVersions), as LangGraph's Pregel loop tells it.
// The same step runs on the official savers (-sqlite, -postgres; none for
// MySQL) and on the store's LangGraphCheckpointer.
import { NestFactory } from '@nestjs/core';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { StoreModule } from '../../src/index.js';
import { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';
import { SQLITE_PRAGMAS } from '../databases.js';
import type { BenchMessage, Engine, Target } from './target.js';

/** An agent's system prompt and tool descriptions: about 2 KB, set by the first step. */
const INSTRUCTIONS = 'You are a research assistant. Use the tools below when a question needs facts you do not have. '.repeat(20);

/** The official saver for the engine (SQLite or PostgreSQL). */
export async function openLangGraph(engine: Engine, url: string): Promise<Target> {
  if (engine === 'sqlite') {
    const db = new Database(url.slice('file:'.length));
    db.exec(SQLITE_PRAGMAS);
    return stepTarget(new SqliteSaver(db), async () => void db.close());
  }
  if (engine === 'postgresql') {
    const saver = PostgresSaver.fromConnString(url);
    await saver.setup();
    return stepTarget(saver, () => saver.end());
  }
  throw new Error('LangGraph has no MySQL checkpointer');
}

/** The store's LangGraphCheckpointer, booted as docs/frameworks/langgraph.md shows it, on the url. */
export async function openLangGraphOurs(_engine: Engine, url: string): Promise<Target> {
  const app = await NestFactory.createApplicationContext(
    { module: class LangGraphBench {}, imports: [StoreModule.forRoot({ url, migrate: true })], providers: [LangGraphCheckpointer] },
    { logger: false, abortOnError: false },
  );
  return stepTarget(app.get(LangGraphCheckpointer), () => app.close());
}

function stepTarget(saver: BaseCheckpointSaver<string | number>, close: () => Promise<void>): Target {
  const configOf = (threadId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
  const messagesOf = (checkpoint: Checkpoint | undefined) => (checkpoint?.channel_values.messages as BenchMessage[] | undefined) ?? [];
  return {
    async step(threadId: string, message: BenchMessage) {
      const latest = await saver.getTuple(configOf(threadId));
      const previous = latest?.checkpoint;
      const versions = previous?.channel_versions ?? {};
      const newVersions = {
        messages: saver.getNextVersion(versions.messages),
        ...(previous === undefined && { instructions: saver.getNextVersion(undefined) }),
      };
      const checkpoint: Checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { instructions: previous?.channel_values.instructions ?? INSTRUCTIONS, messages: [...messagesOf(previous), message] },
        channel_versions: { ...versions, ...newVersions },
      };
      const step = (latest?.metadata?.step ?? -1) + 1;
      await saver.put(latest?.config ?? configOf(threadId), checkpoint, { source: 'loop', step, parents: {} }, newVersions);
    },
    stored: async (threadId) => messagesOf((await saver.getTuple(configOf(threadId)))?.checkpoint).length,
    close,
  };
}
