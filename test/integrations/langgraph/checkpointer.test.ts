// LangGraphCheckpointer under a real graph (@langchain/langgraph's StateGraph), and what
// the store adds to LangGraph's own suite (./validation.test.ts): a run interrupted
// before a tool and resumed on a second store app, as after a restart; deleteThread
// all or nothing; tenants; the application's transaction; bad input.
import { randomUUID } from 'node:crypto';
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { MemorySaver, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { Test } from '@nestjs/testing';
import { StoreDatabaseError, StoreModule, StoreValidationError } from '../../../src/index.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase } from '../../support/databases.js';
import { refuseDelete } from '../../support/failures.js';
import { storeFor } from '../../support/store-app.js';

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (held, added) => held.concat(added), default: () => [] }),
});

/** Two steps: the agent, then a tool that asks for approval (an interrupt) before it runs. */
function agentGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode('agent', (state) => ({ log: [`agent saw ${state.log.length}`] }))
    .addNode('tool', () => {
      const answer = interrupt<string, string>('run the tool?');
      return { log: [`tool ran: ${answer}`] };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', 'tool')
    .addEdge('tool', END)
    .compile({ checkpointer });
}

/** A Nest app as a user writes it: StoreModule and the checkpointer as a provider. */
async function nestApp(url: string) {
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ url, migrate: true })], providers: [LangGraphCheckpointer] }).compile();
  await app.init();
  return app;
}

eachDatabase((database) => {
  test('a StateGraph interrupted before its tool resumes on a second app (as after a restart) with its state', async () => {
    const url = await database.freshUrl();
    const config = { configurable: { thread_id: `thread-${randomUUID()}` } };

    const first = await nestApp(url);
    try {
      const graph = agentGraph(first.get(LangGraphCheckpointer));
      const result = await graph.invoke({ log: ['hi'] }, config);
      expect(result.log).toEqual(['hi', 'agent saw 1']);
      expect((await graph.getState(config)).next).toEqual(['tool']);
    } finally {
      await first.close();
    }

    const second = await nestApp(url);
    try {
      const graph = agentGraph(second.get(LangGraphCheckpointer));
      const paused = await graph.getState(config);
      expect(paused.values).toEqual({ log: ['hi', 'agent saw 1'] });
      expect(paused.next).toEqual(['tool']);
      expect(paused.tasks[0].interrupts.map((pending) => pending.value)).toEqual(['run the tool?']);

      const result = await graph.invoke(new Command({ resume: 'approved' }), config);
      expect(result.log).toEqual(['hi', 'agent saw 1', 'tool ran: approved']);
      const done = await graph.getState(config);
      expect(done.next).toEqual([]);
      expect(done.values).toEqual({ log: ['hi', 'agent saw 1', 'tool ran: approved'] });

      // The history, newest first: input, agent's step, tool's step (and the step before input).
      const history = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      expect(history.map((snapshot) => snapshot.values.log?.length ?? 0)).toEqual([3, 2, 1, 0]);
      expect(history[0].parentConfig?.configurable?.checkpoint_id).toBe(history[1].config.configurable?.checkpoint_id);

      // Another tenant does not see the thread.
      const other = agentGraph(second.get(LangGraphCheckpointer).forTenant('other'));
      expect((await other.getState(config)).values).toEqual({});
    } finally {
      await second.close();
    }
  });

  test("parallel branches store their writes at once, the join sees both, and a replay from before the join forks the thread: as with LangGraph's MemorySaver", async () => {
    /** The run, then a replay from the checkpoint before the join; what each returned and the history after each, by the steps' logs. */
    async function runOn(checkpointer: BaseCheckpointSaver) {
      const graph = new StateGraph(State)
        .addNode('search', async () => ({ log: ['searched'] }))
        .addNode('fetch', async () => ({ log: ['fetched'] }))
        .addNode('join', (state) => ({ log: [`joined ${state.log.length}`] }))
        .addEdge(START, 'search')
        .addEdge(START, 'fetch')
        .addEdge(['search', 'fetch'], 'join')
        .addEdge('join', END)
        .compile({ checkpointer });
      const config = { configurable: { thread_id: 'parallel' } };
      const history = async () => {
        const snapshots = [];
        for await (const snapshot of graph.getStateHistory(config)) snapshots.push(snapshot);
        return snapshots;
      };
      const result = await graph.invoke({ log: ['go'] }, config);
      const first = await history();
      const beforeJoin = first.find((snapshot) => snapshot.next.includes('join'))!;
      const replayed = await graph.invoke(null, beforeJoin.config);
      const logs = (snapshots: Awaited<ReturnType<typeof history>>) =>
        snapshots.map((snapshot) => [snapshot.values.log ?? [], snapshot.next, snapshot.metadata?.source]);
      return { result: result.log, replayed: replayed.log, first: logs(first), after: logs(await history()) };
    }

    const app = await nestApp(await database.freshUrl());
    try {
      const stored = await runOn(app.get(LangGraphCheckpointer));
      expect(stored.result[0]).toBe('go');
      expect(stored.result.slice(1, 3).sort()).toEqual(['fetched', 'searched']);
      expect(stored.result[3]).toBe('joined 3');
      expect(stored).toEqual(await runOn(new MemorySaver()));
    } finally {
      await app.close();
    }
  });

  describe('the store', () => {
    const store = storeFor(database);
    const checkpointer = () => new LangGraphCheckpointer(store.integration);
    const meta = { source: 'update' as const, step: -1, parents: {} };

    /** A thread with a checkpoint in the root and a child namespace, a channel value and a write in each. */
    async function thread(saver: LangGraphCheckpointer, threadId = `thread-${randomUUID()}`) {
      for (const checkpoint_ns of ['', 'child:1']) {
        const checkpoint = { ...emptyCheckpoint(), channel_values: { log: ['x'] }, channel_versions: { log: 1 } };
        const config = await saver.put({ configurable: { thread_id: threadId, checkpoint_ns } }, checkpoint, meta, { log: 1 });
        await saver.putWrites(config, [['log', 'y']], 'task-1');
      }
      return threadId;
    }

    async function rowsOf(threadId: string) {
      const { client } = store.db;
      return {
        checkpoints: await client.agentLgCheckpoint.count({ where: { threadId } }),
        blobs: await client.agentLgBlob.count({
          where: { lane: { in: (await client.agentLgCheckpoint.findMany({ where: { threadId }, select: { lane: true } })).map((row) => row.lane) } },
        }),
        writes: await client.agentLgWrite.count({
          where: {
            checkpointId: {
              in: (await client.agentLgCheckpoint.findMany({ where: { threadId }, select: { checkpointId: true } })).map((row) => row.checkpointId),
            },
          },
        }),
      };
    }

    test('deleteThread deletes every namespace of the thread, and only that thread', async () => {
      const saver = checkpointer();
      const kept = await thread(saver);
      const deleted = await thread(saver);
      expect(await rowsOf(deleted)).toEqual({ checkpoints: 2, blobs: 2, writes: 2 });
      await saver.deleteThread(deleted);
      expect(await rowsOf(deleted)).toEqual({ checkpoints: 0, blobs: 0, writes: 0 });
      expect(await saver.getTuple({ configurable: { thread_id: deleted, checkpoint_ns: 'child:1' } })).toBeUndefined();
      expect(await rowsOf(kept)).toEqual({ checkpoints: 2, blobs: 2, writes: 2 });
      await saver.deleteThread(deleted);
    });

    test('a deleteThread that fails in the middle deletes nothing', async () => {
      const saver = checkpointer();
      const threadId = await thread(saver);
      const before = await rowsOf(threadId);
      // Its values and writes are deleted first; the database then refuses to delete a checkpoint.
      const trigger = await refuseDelete(store, database.provider, 'agent_lg_checkpoint', `OLD.thread_id = '${threadId}'`);
      try {
        await expect(saver.deleteThread(threadId)).rejects.toThrow(StoreDatabaseError);
      } finally {
        await trigger.remove();
      }
      expect(await rowsOf(threadId)).toEqual(before);
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
      expect(tuple?.checkpoint.channel_values).toEqual({ log: ['x'] });
      expect(tuple?.pendingWrites).toEqual([['task-1', 'log', 'y']]);
    });

    test("tenants: one tenant's threads are not another's, even under the same thread id", async () => {
      const acme = checkpointer().forTenant(`acme-${randomUUID()}`);
      const globex = checkpointer().forTenant(`globex-${randomUUID()}`);
      const threadId = await thread(acme, 'shared-id');
      await thread(globex, threadId);
      await globex.deleteThread(threadId);
      expect(await globex.getTuple({ configurable: { thread_id: threadId } })).toBeUndefined();
      const list = async (saver: LangGraphCheckpointer) => {
        const tuples = [];
        for await (const tuple of saver.list({})) tuples.push(tuple);
        return tuples;
      };
      expect(await list(globex)).toEqual([]);
      expect((await list(acme)).map((tuple) => tuple.config.configurable?.checkpoint_ns).sort()).toEqual(['', 'child:1']);
      expect((await acme.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values).toEqual({ log: ['x'] });
      expect(await checkpointer().getTuple({ configurable: { thread_id: threadId } })).toBeUndefined();
      expect(() => acme.forTenant('globex')).toThrow(/already/);
    });

    test("in the application's transaction: its checkpoints commit and roll back with it", async () => {
      const client = store.db.client as unknown as { $transaction<T>(work: (tx: object) => Promise<T>): Promise<T> };
      const threadId = `thread-${randomUUID()}`;
      await expect(
        client.$transaction(async (tx) => {
          await thread(checkpointer().withTransaction(tx), threadId);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await checkpointer().getTuple({ configurable: { thread_id: threadId } })).toBeUndefined();
      await client.$transaction((tx) => thread(checkpointer().withTransaction(tx), threadId));
      expect(await rowsOf(threadId)).toEqual({ checkpoints: 2, blobs: 2, writes: 2 });
    });

    test('ids of any length and unicode are kept; values of every kind round-trip through the serde', async () => {
      const saver = checkpointer();
      const threadId = `thread-${'t'.repeat(300)}-héllo 🌍`;
      const checkpoint_ns = `parent:${randomUUID()}|${'child:'.repeat(60)}${randomUUID()}`;
      const values = { text: 'héllo 🌍', bytes: new Uint8Array([0, 1, 255]), nested: { list: [1, 2.5, null, { deep: true }] }, nothing: null };
      const checkpoint = { ...emptyCheckpoint(), channel_values: values, channel_versions: { text: 1, bytes: 1, nested: 1, nothing: 1 } };
      const config = await saver.put(
        { configurable: { thread_id: threadId, checkpoint_ns } },
        checkpoint,
        { ...meta, custom: 'ünïcode' } as typeof meta,
        checkpoint.channel_versions,
      );
      const tuple = await saver.getTuple(config);
      expect(tuple?.checkpoint).toEqual(checkpoint);
      expect(tuple?.config).toEqual({ configurable: { thread_id: threadId, checkpoint_ns, checkpoint_id: checkpoint.id } });
      expect((tuple?.metadata as Record<string, unknown>).custom).toBe('ünïcode');
    });

    test('a thread id, namespace and task path of 70,000 characters each (past a 64 KiB TEXT column) are kept on every database', async () => {
      const saver = checkpointer();
      const threadId = `thread-${randomUUID()}-${'é'.repeat(70_000)}`;
      const checkpoint_ns = `ns-${'n'.repeat(70_000)}`;
      const taskPath = `~__pregel_pull, ${'p'.repeat(70_000)}`;
      const config = await saver.put({ configurable: { thread_id: threadId, checkpoint_ns } }, emptyCheckpoint(), meta, {});
      await saver.putWrites(config, [['a', 1]], 'task', taskPath);
      const tuple = await saver.getTuple(config);
      expect(tuple?.config.configurable).toMatchObject({ thread_id: threadId, checkpoint_ns });
      expect(tuple?.pendingWrites).toEqual([['task', 'a', 1]]);
      const listed = [];
      for await (const each of saver.list({ configurable: { thread_id: threadId } })) listed.push(each.config.configurable?.thread_id);
      expect(listed).toEqual([threadId]);
      await saver.deleteThread(threadId);
      expect(await saver.getTuple(config)).toBeUndefined();
    });

    test('pending writes come back ordered by task path, task id and index; special channels replace, others are kept', async () => {
      const saver = checkpointer();
      const config = await saver.put({ configurable: { thread_id: `thread-${randomUUID()}` } }, emptyCheckpoint(), meta, {});
      await saver.putWrites(
        config,
        [
          ['b', 1],
          ['a', 2],
        ],
        'task-z',
        '~__pregel_pull, b',
      );
      await saver.putWrites(config, [['c', 3]], 'task-y', '~__pregel_pull, a');
      await saver.putWrites(config, [['b', 'again']], 'task-z', '~__pregel_pull, b');
      await saver.putWrites(config, [['__interrupt__', 'first']], 'task-x', '~__pregel_pull, c');
      await saver.putWrites(config, [['__interrupt__', 'second']], 'task-x', '~__pregel_pull, c');
      expect((await saver.getTuple(config))?.pendingWrites).toEqual([
        ['task-y', 'c', 3],
        ['task-z', 'b', 1],
        ['task-z', 'a', 2],
        ['task-x', '__interrupt__', 'second'],
      ]);
      // In a batch of both kinds too, as in LangGraph's MemorySaver.
      await saver.putWrites(
        config,
        [
          ['__interrupt__', 'third'],
          ['d', 4],
        ],
        'task-x',
        '~__pregel_pull, c',
      );
      await saver.putWrites(
        config,
        [
          ['__interrupt__', 'fourth'],
          ['d', 5],
        ],
        'task-x',
        '~__pregel_pull, c',
      );
      const memory = new MemorySaver();
      const memoryConfig = await memory.put({ configurable: { thread_id: 't', checkpoint_ns: '' } }, emptyCheckpoint(), meta);
      await memory.putWrites(
        memoryConfig,
        [
          ['__interrupt__', 'third'],
          ['d', 4],
        ],
        'task-x',
      );
      await memory.putWrites(
        memoryConfig,
        [
          ['__interrupt__', 'fourth'],
          ['d', 5],
        ],
        'task-x',
      );
      expect((await memory.getTuple(memoryConfig))?.pendingWrites).toEqual([
        ['task-x', '__interrupt__', 'fourth'],
        ['task-x', 'd', 4],
      ]);
      expect((await saver.getTuple(config))?.pendingWrites?.slice(3)).toEqual([
        ['task-x', '__interrupt__', 'fourth'],
        ['task-x', 'd', 4],
      ]);
    });

    test('bad input is a StoreValidationError, and nothing is written', async () => {
      const saver = checkpointer();
      const threadId = `thread-${randomUUID()}`;
      await expect(saver.put({ configurable: { thread_id: `a\u0000b` } }, emptyCheckpoint(), meta, {})).rejects.toThrow(StoreValidationError);
      await expect(saver.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id: 'x'.repeat(192) }, meta, {})).rejects.toThrow(
        StoreValidationError,
      );
      await expect(saver.put({}, emptyCheckpoint(), meta, {})).rejects.toThrow(StoreValidationError);
      await expect(saver.putWrites({ configurable: { thread_id: threadId } }, [['a', 1]], 'task')).rejects.toThrow(StoreValidationError);
      await expect(saver.deleteThread('')).rejects.toThrow(StoreValidationError);
      const list = saver.list({ configurable: { thread_id: threadId } }, { limit: -1 });
      await expect(list.next()).rejects.toThrow(StoreValidationError);
      expect(await saver.getTuple({ configurable: { thread_id: threadId } })).toBeUndefined();
    });
  });
});

// Review findings, each a test that failed before its fix.
eachDatabase((database) => {
  const store = storeFor(database);
  const saver = () => new LangGraphCheckpointer(store.integration);
  const meta = { source: 'update' as const, step: -1, parents: {} };

  test('time travel: two updates of one older state each keep their own value (a version is never written twice)', async () => {
    const State = Annotation.Root({ v: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode('n', (state) => ({ v: `${state.v}+n` }))
      .addEdge(START, 'n')
      .addEdge('n', END)
      .compile({ checkpointer: saver() });
    const config = { configurable: { thread_id: `fork-${randomUUID()}` } };
    await graph.invoke({ v: 'first' }, config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const older = history.find((snapshot) => snapshot.values.v === 'first')!;
    const one = await graph.updateState(older.config, { v: 'EDIT-1' });
    const two = await graph.updateState(older.config, { v: 'EDIT-2' });
    expect((await graph.getState(one)).values).toEqual({ v: 'EDIT-1' });
    expect((await graph.getState(two)).values).toEqual({ v: 'EDIT-2' });
  });

  test('two writers at once: puts that bring one version, and a retried task’s identical writes, all succeed', async () => {
    const failures: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      const s = saver();
      const base = await s.put({ configurable: { thread_id: `writers-${randomUUID()}` } }, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {});
      const put = () => s.put(base, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'same' }, channel_versions: { a: 1 } }, meta, { a: 1 });
      const writes = () =>
        s.putWrites(
          base,
          [
            ['x', 1],
            ['y', 2],
          ],
          'task-1',
        );
      for (const outcome of await Promise.allSettled([put(), put(), writes(), writes()])) if (outcome.status === 'rejected') failures.push(outcome.reason);
      expect((await s.getTuple(base))?.pendingWrites).toHaveLength(2);
    }
    expect(failures).toEqual([]);
  });

  test("a channel named like an object's own property is a channel like any other", async () => {
    const s = saver();
    const config = await s.put({ configurable: { thread_id: `proto-${randomUUID()}` } }, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {});
    await s.putWrites(
      config,
      [
        ['constructor', 1],
        ['toString', 2],
      ],
      'task-1',
    );
    expect((await s.getTuple(config))?.pendingWrites).toEqual([
      ['task-1', 'constructor', 1],
      ['task-1', 'toString', 2],
    ]);
  });
});
