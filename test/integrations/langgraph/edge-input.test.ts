// LangGraphCheckpointer on input a hostile or careless caller gives, and on a delete racing a put:
// each found by a reviewer of the read plans and the keys by thread (failing before its fix).
import { randomUUID } from 'node:crypto';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { StoreValidationError } from '../../../src/index.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase } from '../../support/databases.js';
import { eachStorePath, storeFor } from '../../support/store-app.js';

const meta = { source: 'update' as const, step: -1, parents: {} };

/** Resolves when `work` resolves, or when it rejects with a StoreValidationError; anything else (a raw database error) fails. */
async function acceptedOrRefused<T>(work: Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    expect(error).toBeInstanceOf(StoreValidationError);
    return { ok: false };
  }
}

eachDatabase((database) => {
  eachStorePath(database, (store) => {
    test("a task's 1,200 writes, more than one statement holds, are kept whole, and putting them again keeps the first", async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const config = await saver.put(
        { configurable: { thread_id: `many-${randomUUID()}`, checkpoint_ns: '' } },
        { ...emptyCheckpoint(), id: uuid6(-1) },
        meta,
        {},
      );
      const writes = Array.from({ length: 1200 }, (_, i): [string, unknown] => [`channel-${i % 7}`, i]);
      await saver.putWrites(config, writes, 'task');
      await saver.putWrites(
        config,
        writes.map(([channel, value]): [string, unknown] => [channel, `again ${String(value)}`]),
        'task',
      );
      const pending = (await saver.getTuple(config))?.pendingWrites ?? [];
      expect(pending).toHaveLength(1200);
      expect(pending.map(([task, channel, value]) => [task, channel, value]).sort((a, b) => Number(a[2]) - Number(b[2]))).toEqual(
        writes.map(([channel, value]) => ['task', channel, value]),
      );
    });

    test('list by namespace alone finds that namespace only: one that differs by trailing spaces (one to MariaDB) is refused', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const threadId = `ns-${randomUUID()}`;
      await saver.put({ configurable: { thread_id: threadId, checkpoint_ns: 'x' } }, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {});
      await expect(
        saver.put({ configurable: { thread_id: threadId, checkpoint_ns: 'x   ' } }, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {}),
      ).rejects.toThrow(StoreValidationError);
      const namespaces: string[] = [];
      for await (const tuple of saver.list({ configurable: { checkpoint_ns: 'x' } })) namespaces.push(tuple.config.configurable?.checkpoint_ns as string);
      expect(namespaces).toEqual(['x']);
    });

    test('what put accepts in channel_versions, getTuple and list can read back (a NUL in a channel name)', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const config = { configurable: { thread_id: `nul-${randomUUID()}` } };
      const put = await acceptedOrRefused(
        saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { ok: 1 }, channel_versions: { ok: 1, 'a\u0000b': 1 } }, meta, { ok: 1 }),
      );
      if (!put.ok) return;
      expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ ok: 1 });
      // One thread's checkpoint must not break the tenant's listing of every thread.
      const all = [];
      for await (const tuple of saver.list({ configurable: {} })) all.push(tuple);
      expect(all).toHaveLength(1);
    });

    test('a limit too large for the database is served or refused as input, never a database error', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const threadId = `limit-${randomUUID()}`;
      await saver.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {});
      const listed = async (limit: number) => {
        const out = [];
        for await (const tuple of saver.list({ configurable: { thread_id: threadId } }, { limit })) out.push(tuple);
        return out.length;
      };
      const outcomes: Record<string, string> = {};
      for (const limit of [2 ** 53, 2 ** 63, 1e21]) {
        outcomes[limit] = await listed(limit).then(
          (n) => `listed ${n}`,
          (error: Error) => (error instanceof StoreValidationError ? 'refused' : `${error.name}: ${error.message.split('\n').filter(Boolean).slice(-1)[0]}`),
        );
      }
      // The diff shows each limit's outcome.
      expect(outcomes).toEqual(Object.fromEntries(Object.keys(outcomes).map((limit) => [limit, expect.stringMatching(/^(listed 1|refused)$/)])));
    });
  });

  eachStorePath(database, (store) => {
    test('a checkpoint of 1,000 channels (put stores it) reads back', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const config = { configurable: { thread_id: `wide-${randomUUID()}` } };
      const versions = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`c${i}`, 1]));
      const values = Object.fromEntries(Object.keys(versions).map((channel) => [channel, 0]));
      await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: values, channel_versions: versions }, meta, versions);
      const tuple = await saver.getTuple(config);
      expect(Object.keys(tuple?.checkpoint.channel_values ?? {})).toHaveLength(1000);
    });
  });

  if (database.provider === 'sqlite') {
    const store = storeFor(database);

    test('a channel named __proto__ comes back as a channel, not as the prototype of channel_values', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const config = { configurable: { thread_id: `proto-${randomUUID()}` } };
      const values = JSON.parse('{"__proto__": {"messages": "injected"}, "a": 1}') as Record<string, unknown>;
      const versions = JSON.parse('{"__proto__": 1, "a": 1}') as Record<string, number>;
      await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: values, channel_versions: versions }, meta, versions);
      const read = (await saver.getTuple(config))?.checkpoint.channel_values as Record<string, unknown>;
      expect(Object.hasOwn(read, '__proto__')).toBe(true);
      expect(read.messages).toBeUndefined();
    });
  }

  if (database.provider === 'postgresql') {
    const store = storeFor(database);

    test('deleteThread racing a put leaves no value of the thread behind, which a later put of the same version would read', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const threadId = `race-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId } };
      const version = `v-${randomUUID()}`;
      await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'before' }, channel_versions: { a: 'v0' } }, meta, { a: 'v0' });
      const client = store.db.client as unknown as {
        $executeRawUnsafe(sql: string): Promise<number>;
        agentLgBlob: { count(q: object): Promise<number> };
        agentLgCheckpoint: { count(q: object): Promise<number> };
      };
      // A pause between deleteThread's DELETE of the values and its DELETE of the checkpoints (as a slow or loaded server gives).
      await client.$executeRawUnsafe(`CREATE FUNCTION review_pause() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$ LANGUAGE plpgsql`);
      await client.$executeRawUnsafe(`CREATE TRIGGER review_pause AFTER DELETE ON agent_lg_blob FOR EACH STATEMENT EXECUTE FUNCTION review_pause()`);
      try {
        const deleting = saver.deleteThread(threadId);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'racing' }, channel_versions: { a: version } }, meta, {
          a: version,
        });
        await deleting;
      } finally {
        await client.$executeRawUnsafe('DROP TRIGGER review_pause ON agent_lg_blob');
        await client.$executeRawUnsafe('DROP FUNCTION review_pause()');
      }
      const left = {
        checkpoints: await client.agentLgCheckpoint.count({ where: { threadId } }),
        values: await client.agentLgBlob.count({ where: { version } }),
      };
      // The consequence: the thread started again, bringing the same version with a new value, reads the deleted one.
      await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'after' }, channel_versions: { a: version } }, meta, { a: version });
      const values = (await saver.getTuple(config))?.checkpoint.channel_values;
      // Either the put came before the delete (both gone) or after it (both kept): never a value without its checkpoint.
      // Kept, its version's value is the racing put's: a version is stored once (LangGraph never reuses one).
      expect({ left, values }).toEqual({ left: { checkpoints: left.values, values: left.values }, values: { a: left.values === 0 ? 'after' : 'racing' } });
      expect([0, 1]).toContain(left.values);
    });
  }
});
