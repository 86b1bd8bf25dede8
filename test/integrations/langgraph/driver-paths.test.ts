// LangGraphCheckpointer's SQL on the driver (see src/integrations/langgraph/langgraph-statements.ts): in the
// application's transaction on a client whose driver the store reaches (a savepoint there), on
// that client outside it, and on edge input both on the driver and through Prisma, which must agree.
// Written by a reviewer of that change.
import { randomUUID } from 'node:crypto';
import { TASKS, emptyCheckpoint, uuid6, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { Test } from '@nestjs/testing';
import { StoreModule, StoreValidationError } from '../../../src/index.js';
import { StoreDatabase } from '../../../src/engine/database.js';
import { IntegrationStore } from '../../../src/contract/index.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase, runSql } from '../../support/databases.js';
import { appClient, migratedUrl } from '../../support/openers.js';
import { eachStorePath } from '../../support/store-app.js';

const meta = { source: 'update' as const, step: -1, parents: {} };

/** Statements that make the database refuse the INSERT of checkpoint `id` (a trigger named `name`). */
const refusingCheckpoint = (provider: string, name: string, id: string): string[] =>
  ({
    sqlite: [`CREATE TRIGGER ${name} BEFORE INSERT ON agent_lg_checkpoint WHEN NEW.checkpoint_id = '${id}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`],
    postgresql: [
      `CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF NEW.checkpoint_id = '${id}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      `CREATE TRIGGER ${name} BEFORE INSERT ON agent_lg_checkpoint FOR EACH ROW EXECUTE FUNCTION ${name}()`,
    ],
    mysql: [
      `CREATE TRIGGER ${name} BEFORE INSERT ON agent_lg_checkpoint FOR EACH ROW BEGIN IF NEW.checkpoint_id = '${id}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
    ],
  })[provider]!;

eachDatabase((database) => {
  describe("in the application's transaction, on a client whose driver the store reaches", () => {
    let prisma: Awaited<ReturnType<typeof appClient>>;
    let url: string;
    let db: StoreDatabase;
    let integration: IntegrationStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      url = await migratedUrl(database);
      prisma = await appClient(database, url);
      const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
      await app.init();
      db = app.get(StoreDatabase);
      integration = app.get(IntegrationStore);
      close = async () => {
        await app.close();
        await prisma.$disconnect();
      };
    });
    afterAll(() => close?.());
    const tx$ = () => prisma as unknown as { $transaction<T>(work: (tx: object) => Promise<T>): Promise<T> };

    test('the host fast paths are used, commit and roll back with it, and a refused put leaves the transaction usable', async () => {
      const saver = new LangGraphCheckpointer(integration);
      const threadId = `host-${randomUUID()}`;
      const put = (s: LangGraphCheckpointer, id: string, value: string) =>
        s.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id, channel_values: { a: value }, channel_versions: { a: id } }, meta, {
          a: id,
        });
      const first = uuid6(-1);
      const refused = uuid6(-1);
      const last = uuid6(-1);
      const trigger = refusingCheckpoint(database.provider, 'refuse_cp', refused);
      await runSql(url, trigger);
      let used: unknown;
      await tx$().$transaction(async (tx) => {
        used = await db.joining(tx).fastPaths();
        const s = saver.withTransaction(tx);
        await put(s, first, 'one');
        await expect(put(s, refused, 'two')).rejects.toThrow(/injected failure/);
        // The refused put's value (inserted before its checkpoint) went with its savepoint.
        expect(await (tx as { agentLgBlob: { count(q: object): Promise<number> } }).agentLgBlob.count({ where: { version: refused } })).toBe(0);
        await put(s, last, 'three');
        expect((await s.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values).toEqual({ a: 'three' });
      });
      expect(used).toEqual(expect.objectContaining({ transaction: expect.any(Function), writeAll: expect.any(Function) }));
      const ids = [];
      for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) ids.push(tuple.checkpoint.id);
      expect(ids).toEqual([last, first]);

      const rolled = `host-${randomUUID()}`;
      await expect(
        tx$().$transaction(async (tx) => {
          await saver.withTransaction(tx).put({ configurable: { thread_id: rolled } }, emptyCheckpoint(), meta, {});
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await saver.getTuple({ configurable: { thread_id: rolled } })).toBeUndefined();
    });

    test('on the app client outside its transactions (binary protocol on MariaDB): list with limit and before', async () => {
      expect(await db.fastPaths()).toEqual(expect.objectContaining({ transaction: expect.any(Function) }));
      const saver = new LangGraphCheckpointer(integration);
      const threadId = `app-${randomUUID()}`;
      const ids = [uuid6(-1), uuid6(-1), uuid6(-1)];
      for (const id of ids)
        await saver.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id, channel_values: { a: id }, channel_versions: { a: id } }, meta, {
          a: id,
        });
      const list = async (options: object) => {
        const out = [];
        for await (const tuple of saver.list({ configurable: { thread_id: threadId } }, options)) out.push(tuple.checkpoint.id);
        return out;
      };
      expect(await list({ limit: 0 })).toEqual([]);
      expect(await list({ limit: 2 })).toEqual([ids[2], ids[1]]);
      expect(await list({ before: { configurable: { checkpoint_id: ids[2] } }, limit: 1 })).toEqual([ids[1]]);
      expect((await saver.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values).toEqual({ a: ids[2] });
    });
  });

  eachStorePath(database, (store) => {
    test('list: limit 0, a huge limit, before', async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const threadId = `edge-${randomUUID()}`;
      const ids = [uuid6(-1), uuid6(-1), uuid6(-1)];
      for (const id of ids) await saver.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id }, meta, {});
      const list = async (options: object) => {
        const out = [];
        for await (const tuple of saver.list({ configurable: { thread_id: threadId } }, options)) out.push(tuple.checkpoint.id);
        return out;
      };
      expect(await list({ limit: 0 })).toEqual([]);
      expect(await list({ limit: 2 ** 31 })).toEqual([...ids].reverse());
      expect(await list({ before: { configurable: { checkpoint_id: ids[2] } }, limit: 1 })).toEqual([ids[1]]);
    });

    test('a put refused at its checkpoint leaves no value; reads whose work throws release their connection', async () => {
      const saver = new LangGraphCheckpointer(store.integration);
      const threadId = `fail-${randomUUID()}`;
      const refused = uuid6(-1);
      const trigger = refusingCheckpoint(database.provider, 'refuse_cp2', refused);
      for (const sql of trigger) await store.db.client.$executeRawUnsafe(sql);
      await expect(
        saver.put(
          { configurable: { thread_id: threadId } },
          { ...emptyCheckpoint(), id: refused, channel_values: { a: 1 }, channel_versions: { a: refused } },
          meta,
          { a: refused },
        ),
      ).rejects.toThrow(/injected failure/);
      expect(await store.db.client.agentLgBlob.count({ where: { version: refused } })).toBe(0);
      const ok = uuid6(-1);
      await saver.put({ configurable: { thread_id: threadId } }, { ...emptyCheckpoint(), id: ok }, meta, {});
      const failing = new LangGraphCheckpointer(store.integration);
      failing.serde = {
        dumpsTyped: saver.serde.dumpsTyped.bind(saver.serde),
        loadsTyped: async () => {
          throw new Error('serde broke');
        },
      };
      for (let i = 0; i < 40; i++) await expect(failing.getTuple({ configurable: { thread_id: threadId } })).rejects.toThrow(/serde broke/);
      expect((await saver.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.id).toBe(ok);
    });

    test("a checkpoint written before channel_versions was kept is read whole: its values found through its decoded versions, its writes and its parent's sends", async () => {
      const saver = new LangGraphCheckpointer(store.integration).forTenant(`t-${randomUUID()}`);
      const threadId = `legacy-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId } };
      const parent = { ...emptyCheckpoint(), v: 3, id: uuid6(-1), channel_values: { a: 'first', b: 'kept' }, channel_versions: { a: 1, b: 1 } };
      const parentConfig = await saver.put(config, parent, meta, { a: 1, b: 1 });
      await saver.putWrites(parentConfig, [[TASKS, 'sent']], 'task-1');
      const child = { ...emptyCheckpoint(), v: 3, id: uuid6(-1), channel_values: { a: 'second', b: 'kept' }, channel_versions: { a: 2, b: 1 } };
      const childConfig = await saver.put(parentConfig, child, meta, { a: 2 });
      await saver.putWrites(childConfig, [['a', 'pending']], 'task-2');
      const expected = { a: 'second', b: 'kept', [TASKS]: ['sent'] };
      const read = async () => {
        const tuple = await saver.getTuple(config);
        const listed = [];
        for await (const each of saver.list(config)) listed.push(each.checkpoint.channel_values);
        return { values: tuple?.checkpoint.channel_values, writes: tuple?.pendingWrites, listed };
      };
      const before = await read();
      expect(before).toEqual({ values: expected, writes: [['task-2', 'a', 'pending']], listed: [expected, { a: 'first', b: 'kept' }] });
      expect(await store.db.client.agentLgCheckpoint.count({ where: { threadId, channelVersions: null } })).toBe(0);
      // As the rows of the first LangGraph migration are: no channel_versions.
      await store.db.client.agentLgCheckpoint.updateMany({ where: { threadId }, data: { channelVersions: null } });
      expect(await read()).toEqual(before);
    });

    test('a serde that gives text, not bytes, is refused before anything is written', async () => {
      const saver = new LangGraphCheckpointer(store.integration);
      const serde: SerializerProtocol = {
        dumpsTyped: async (value: unknown) => ['json', JSON.stringify(value) as unknown as Uint8Array],
        loadsTyped: async (_type: string, data: Uint8Array | string) => JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data)),
      };
      saver.serde = serde;
      const config = { configurable: { thread_id: `serde-${randomUUID()}` } };
      await expect(
        saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { a: 'x' }, channel_versions: { a: 1 } }, meta, { a: 1 }),
      ).rejects.toThrow(StoreValidationError);
      expect(await new LangGraphCheckpointer(store.integration).getTuple(config)).toBeUndefined();
    });
  });
});
