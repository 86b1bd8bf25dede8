// LangGraph's checkpointers in the loop a LangGraph agent runs per step: load
// the thread's latest checkpoint (getTuple), append the message to the state's
// message list, store the new checkpoint (put). The state is an agent's: the
// message list, which every step changes, and its instructions, which no step
// changes. Each saver versions the channels its own way (getNextVersion), and
// is told which changed (put's newVersions), as LangGraph's Pregel loop tells it.
// The same step runs on the official savers (-sqlite, -postgres; none for
// MySQL) and on the store's LangGraphCheckpointer.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { NestFactory } from '@nestjs/core';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { StoreModule } from '../../src/index.js';
import { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';
import { SQLITE_PRAGMAS } from '../databases.js';
import type { AgentTurn } from '../turn.js';
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
  const turns = new Map<string, AgentTurn>();
  const graph = turnGraph(saver, turns);
  return {
    /** The turn as a LangGraph agent runs it: the graph invoked with the user's message, its nodes the model's steps and the tools'. No session header. */
    async turn(threadId: string, turn: AgentTurn) {
      turns.set(threadId, turn);
      try {
        await graph.invoke({ messages: [new HumanMessage(turn.user.content)] }, { configurable: { thread_id: threadId } });
      } finally {
        turns.delete(threadId);
      }
    },
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

/**
 * A ReAct agent's graph (an agent node and a tools node, as createReactAgent builds it) whose model and tools
 * answer from the thread's AgentTurn in `turns`: a tool call per step, each tool's result, then the answer.
 */
function turnGraph(saver: BaseCheckpointSaver<string | number>, turns: Map<string, AgentTurn>) {
  const turnOf = (config: RunnableConfig) => turns.get(config.configurable!.thread_id as string)!;
  /** The tool results since the turn's user message. */
  const stepsDone = (messages: BaseMessage[]) => {
    let done = 0;
    for (let i = messages.length - 1; i >= 0 && !HumanMessage.isInstance(messages[i]); i--) if (ToolMessage.isInstance(messages[i])) done++;
    return done;
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', (state, config) => {
      const turn = turnOf(config);
      const done = stepsDone(state.messages);
      if (done === turn.steps.length) return { messages: [new AIMessage(turn.answer.content)] };
      const [call] = turn.steps[done][0].content;
      return { messages: [new AIMessage({ content: '', tool_calls: [{ id: call.toolCallId, name: call.toolName, args: call.input, type: 'tool_call' }] })] };
    })
    .addNode('tools', (state, config) => {
      const [, result] = turnOf(config).steps[stepsDone(state.messages)];
      const [part] = result.content;
      return { messages: [new ToolMessage({ tool_call_id: part.toolCallId, name: part.toolName, content: JSON.stringify(part.output.value) })] };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer: saver as BaseCheckpointSaver<number> });
}
