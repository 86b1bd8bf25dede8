// A database the first LangGraph migration made, holding a thread, upgraded by
// the later ones (keys led by the thread's, channel_versions added): the
// thread reads back whole, takes new checkpoints and is deleted whole.
import { createHash } from 'node:crypto';
import { MemorySaver, TASKS, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { shippedMigrations } from '../../../src/engine/migration-files.js';
import { applyMigrations } from '../../../src/engine/migrator.js';
import { KITS } from '../../../src/databases/index.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase, runSql } from '../../support/databases.js';
import { OWN_ADAPTERS } from '../../support/openers.js';
import { storeApp } from '../../support/store-app.js';

const FIRST_LANGGRAPH_MIGRATION = '20261202124709_langgraph_checkpoints';
const digest = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
const serde = new MemorySaver().serde;
const bytes = async (value: unknown) => Buffer.from((await serde.dumpsTyped(value))[1]).toString('hex');

eachDatabase((database) => {
  test('a thread stored by the first LangGraph migration reads back whole after the later ones, takes a new checkpoint and is deleted whole', async () => {
    const url = await database.freshUrl();
    const files = shippedMigrations(database.provider);
    const upTo = files.findIndex((file) => file.name === FIRST_LANGGRAPH_MIGRATION);
    expect(upTo).toBeGreaterThan(0);
    expect(files.length).toBeGreaterThan(upTo + 1);
    const adapter = await OWN_ADAPTERS[database.provider](url).connect();
    try {
      await applyMigrations(adapter, KITS[database.provider], files.slice(0, upTo + 1));
    } finally {
      await adapter.dispose();
    }

    // The rows as that release wrote them: a parent (format 3) whose task sent, a child with a pending write.
    const threadId = 'thread-before-upgrade';
    const lane = digest([null, threadId, '']);
    const threadKey = digest([null, threadId]);
    const hex = (value: string) => (database.provider === 'postgresql' ? `decode('${value}', 'hex')` : `X'${value}'`);
    const parent = { ...emptyCheckpoint(), v: 3, id: uuid6(-1), channel_versions: { a: '1', b: '1' } };
    const child = { ...emptyCheckpoint(), v: 3, id: uuid6(-1), channel_versions: { a: '2', b: '1' } };
    const checkpointRow = async (checkpoint: typeof parent, parentId: string | null) =>
      `INSERT INTO agent_lg_checkpoint (lane, checkpoint_id, thread_key, tenant_id, thread_id, checkpoint_ns, parent_checkpoint_id, checkpoint_data, checkpoint_type, metadata, metadata_type)
       VALUES ('${lane}', '${checkpoint.id}', '${threadKey}', NULL, '${threadId}', '', ${parentId === null ? 'NULL' : `'${parentId}'`}, ${hex(await bytes(checkpoint))}, 'json', ${hex(await bytes({ step: 1 }))}, 'json')`;
    const blobRow = async (channel: string, version: string, value: unknown) =>
      `INSERT INTO agent_lg_blob (lane, channel_name, channel_version, thread_key, payload_type, payload) VALUES ('${lane}', '${channel}', '${version}', '${threadKey}', 'json', ${hex(await bytes(value))})`;
    const writeRow = async (checkpointId: string, taskId: string, channel: string, value: unknown) =>
      `INSERT INTO agent_lg_write (lane, checkpoint_id, task_id, idx, thread_key, task_path, channel_name, payload_type, payload)
       VALUES ('${lane}', '${checkpointId}', '${taskId}', 0, '${threadKey}', '', '${channel}', 'json', ${hex(await bytes(value))})`;
    await runSql(url, [
      await checkpointRow(parent, null),
      await checkpointRow(child, parent.id),
      await blobRow('a', '1', 'first'),
      await blobRow('a', '2', 'second'),
      await blobRow('b', '1', 'kept'),
      await writeRow(parent.id, 'task-1', TASKS, 'sent'),
      await writeRow(child.id, 'task-2', 'a', 'pending'),
    ]);

    const store = await storeApp({ url, migrate: true });
    try {
      const saver = new LangGraphCheckpointer(store.integration);
      const config = { configurable: { thread_id: threadId } };
      const latest = await saver.getTuple(config);
      expect(latest?.checkpoint.id).toBe(child.id);
      expect(latest?.checkpoint.channel_values).toEqual({ a: 'second', b: 'kept', [TASKS]: ['sent'] });
      expect(latest?.pendingWrites).toEqual([['task-2', 'a', 'pending']]);
      const listed = [];
      for await (const tuple of saver.list(config)) listed.push([tuple.checkpoint.id, tuple.checkpoint.channel_values]);
      expect(listed).toEqual([
        [child.id, { a: 'second', b: 'kept', [TASKS]: ['sent'] }],
        [parent.id, { a: 'first', b: 'kept' }],
      ]);

      const next = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'third', b: 'kept' }, channel_versions: { a: '3', b: '1' } };
      await saver.put(latest!.config, next, { source: 'loop', step: 2, parents: {} }, { a: '3' });
      expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ a: 'third', b: 'kept' });

      await saver.deleteThread(threadId);
      expect(await saver.getTuple(config)).toBeUndefined();
      const left = await Promise.all(
        ['agent_lg_checkpoint', 'agent_lg_blob', 'agent_lg_write'].map((table) => store.db.client.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${table}`)),
      );
      expect(left.map((rows) => rows.length)).toEqual([0, 0, 0]);
    } finally {
      await store.close();
    }
  });
});
