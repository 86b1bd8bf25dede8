// A channel's grown value stored as a delta on the version before (SQLite; see
// src/integrations/langgraph/langgraph-deltas.ts): every checkpoint reads back exactly what was put,
// from a reader that holds nothing and from the writer that holds its last values;
// a base that another writer deleted or wrote again is never built on; a chain is
// at most MAX_DEPTH deltas long; a broken chain is an error, not a wrong value.
// PostgreSQL and MariaDB store values whole, and read a delta all the same.
import { randomUUID } from 'node:crypto';
import { emptyCheckpoint, JsonPlusSerializer, uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { StoreDatabaseError } from '../../../src/index.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { commonPrefixLength, MAX_DEPTH } from '../../../src/integrations/langgraph/langgraph-deltas.js';
import { eachDatabase } from '../../support/databases.js';
import { eachStorePath } from '../../support/store-app.js';

const meta = { source: 'loop' as const, step: 0, parents: {} };
const message = (i: number) => ({ role: i % 2 ? 'user' : 'assistant', content: `message ${i} ${'lorem ipsum '.repeat(12)}` });
const messages = (n: number) => Array.from({ length: n }, (_, i) => message(i + 1));

interface BlobRows {
  agentLgBlob: {
    findMany(query: object): Promise<{ channel: string; version: string; baseVersion: string | null; prefixLength: number | null; value: Uint8Array | null }[]>;
    updateMany(query: object): Promise<{ count: number }>;
    deleteMany(query: object): Promise<{ count: number }>;
  };
}

/** Puts `steps` checkpoints on the thread as LangGraph's loop does, the message list one longer each time. */
async function grow(saver: LangGraphCheckpointer, threadId: string, steps: number, from = 0) {
  let config = { configurable: { thread_id: threadId, checkpoint_ns: '' } } as { configurable: Record<string, unknown> };
  let version: number | undefined;
  const put: { id: string; messages: unknown[] }[] = [];
  const latest = await saver.getTuple(config);
  if (latest) {
    config = latest.config as typeof config;
    version = latest.checkpoint.channel_versions.messages as number;
  }
  for (let n = from + 1; n <= from + steps; n++) {
    version = saver.getNextVersion(version);
    const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: messages(n) }, channel_versions: { messages: version } };
    config = (await saver.put(config, checkpoint, { ...meta, step: n }, { messages: version })) as typeof config;
    put.push({ id: checkpoint.id, messages: messages(n) });
  }
  return put;
}

eachDatabase((database) => {
  eachStorePath(database, (store) => {
    const rows = () => store.db.client as unknown as BlobRows;
    const deltas = database.provider === 'sqlite';

    test('every checkpoint of a growing thread reads back exactly, from a reader holding nothing and from the writer; the chains are bounded', async () => {
      const tenant = `t-${randomUUID()}`;
      const writer = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const threadId = `grow-${randomUUID()}`;
      const put = await grow(writer, threadId, 2 * MAX_DEPTH + 10);

      const reader = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const listed = new Map<string, unknown>();
      for await (const tuple of reader.list({ configurable: { thread_id: threadId } }))
        listed.set(tuple.checkpoint.id, tuple.checkpoint.channel_values.messages);
      expect(listed.size).toBe(put.length);
      for (const { id, messages } of put) expect(listed.get(id)).toEqual(messages);
      for (const saver of [reader, writer, new LangGraphCheckpointer(store.integration).forTenant(tenant)]) {
        expect((await saver.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values.messages).toEqual(put.at(-1)!.messages);
        const middle = put[MAX_DEPTH + 3];
        expect((await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_id: middle.id } }))?.checkpoint.channel_values.messages).toEqual(
          middle.messages,
        );
      }

      const stored = await rows().agentLgBlob.findMany({ where: { channel: 'messages', lane: { in: await lanesOf(threadId) } } });
      expect(stored).toHaveLength(put.length);
      const byVersion = new Map(stored.map((row) => [row.version, row]));
      const depthOf = (version: string): number => {
        const row = byVersion.get(version)!;
        return row.baseVersion === null ? 0 : 1 + depthOf(row.baseVersion);
      };
      const depths = stored.map((row) => depthOf(row.version));
      if (deltas) {
        expect(Math.max(...depths)).toBe(MAX_DEPTH);
        // Small values are stored whole; from some 2 KB on, a whole row only where a chain is full.
        expect(stored.filter((row) => row.baseVersion !== null).length).toBeGreaterThan(put.length / 2);
        const written = stored.reduce((sum, row) => sum + (row.value?.byteLength ?? 0), 0);
        const whole = put.reduce((sum, { messages }) => sum + JSON.stringify(messages).length, 0);
        expect(written).toBeLessThan(whole / 4);
      } else {
        expect(depths.every((depth) => depth === 0)).toBe(true);
      }
    });

    test('a base another writer deleted, or deleted and wrote again at the same version, is not built on: the grown value is stored whole', async () => {
      const tenant = `t-${randomUUID()}`;
      const threadId = `stale-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const a = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const b = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const putAt = (saver: LangGraphCheckpointer, version: number, values: unknown[]) =>
        saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: values }, channel_versions: { messages: version } }, meta, {
          messages: version,
        });
      const mine = messages(30);
      const theirs = messages(30).map((m) => ({ ...m, role: 'system' }));
      await putAt(a, 1, mine);

      // Deleted and written again, at the version `a` holds, with other bytes of the same length.
      await b.deleteThread(threadId);
      await putAt(b, 1, theirs);
      // `a` holds version 1 still: its read finds the row's nonce changed and reads the row.
      expect((await a.getTuple(config))?.checkpoint.channel_values.messages).toEqual(theirs);
      await putAt(a, 1, mine);
      await putAt(a, 2, [...mine, message(31)]);
      expect((await new LangGraphCheckpointer(store.integration).forTenant(tenant).getTuple(config))?.checkpoint.channel_values.messages).toEqual([
        ...mine,
        message(31),
      ]);

      // Deleted only.
      const c = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      await putAt(c, 3, mine);
      await b.deleteThread(threadId);
      await putAt(c, 4, [...mine, message(31)]);
      expect((await new LangGraphCheckpointer(store.integration).forTenant(tenant).getTuple(config))?.checkpoint.channel_values.messages).toEqual([
        ...mine,
        message(31),
      ]);
      const stored = await rows().agentLgBlob.findMany({ where: { lane: { in: await lanesOf(threadId) } } });
      expect(stored.map((row) => [row.version, row.baseVersion])).toEqual([['4', null]]);
    });

    test('a delta whose base is gone is an error naming the channel, not a value', async () => {
      const tenant = `t-${randomUUID()}`;
      const threadId = `broken-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const saver = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      await putDelta(saver, config);
      const lanes = await lanesOf(threadId);
      expect(await rows().agentLgBlob.deleteMany({ where: { lane: { in: lanes }, version: '1' } })).toEqual({ count: 1 });
      const reader = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      await expect(reader.getTuple(config)).rejects.toThrow(StoreDatabaseError);
      await expect(reader.getTuple(config)).rejects.toThrow(/channel messages at version 2 is a delta/);
    });

    test('a chain deeper than the store writes (made by hand) is refused; one within its bound reads back', async () => {
      const tenant = `t-${randomUUID()}`;
      const threadId = `deep-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const saver = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const depth = MAX_DEPTH + 3;
      const values = Array.from({ length: depth + 1 }, (_, v) => messages(20 + v));
      for (const [version, value] of values.entries()) {
        await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: value }, channel_versions: { messages: version } }, meta, {
          messages: version,
        });
      }
      const bytes = await Promise.all(values.map(async (value) => (await saver.serde.dumpsTyped(value))[1]));
      const lane = { in: await lanesOf(threadId) };
      for (let version = 1; version <= depth; version++) {
        const prefixLength = commonPrefixLength(bytes[version - 1], bytes[version]);
        const data = { value: new Uint8Array(bytes[version].subarray(prefixLength)), baseVersion: String(version - 1), prefixLength };
        expect(await rows().agentLgBlob.updateMany({ where: { lane, channel: 'messages', version: String(version) }, data })).toEqual({ count: 1 });
      }
      await expect(new LangGraphCheckpointer(store.integration).forTenant(tenant).getTuple(config)).rejects.toThrow(`more than ${MAX_DEPTH} deltas down`);
      // One level less than the store's bound reads back.
      const fresh = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      await rows().agentLgBlob.updateMany({
        where: { lane, channel: 'messages', version: String(depth - MAX_DEPTH) },
        data: { value: new Uint8Array(bytes[depth - MAX_DEPTH]), baseVersion: null, prefixLength: null },
      });
      expect((await fresh.getTuple(config))?.checkpoint.channel_values.messages).toEqual(values[depth]);
    });

    test('a delta row is read back on every database', async () => {
      const tenant = `t-${randomUUID()}`;
      const threadId = `read-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const saver = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const grown = await putDelta(saver, config);
      const [row] = await rows().agentLgBlob.findMany({ where: { lane: { in: await lanesOf(threadId) }, version: '2' } });
      expect(row.baseVersion).toBe('1');
      expect((await new LangGraphCheckpointer(store.integration).forTenant(tenant).getTuple(config))?.checkpoint.channel_values.messages).toEqual(grown);
    });

    test('a Uint8Array value changed in place after its put, or after its read, is read back as it was put', async () => {
      const tenant = `t-${randomUUID()}`;
      const threadId = `in-place-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const saver = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      // What a read gave: its length and the bytes it holds (each value is one byte repeated).
      const filled = (value: unknown) => ({ length: (value as Uint8Array).length, bytes: [...new Set(value as Uint8Array)] });
      const audioOf = async (reader: LangGraphCheckpointer, checkpointId?: string) =>
        (await reader.getTuple({ configurable: { ...config.configurable, ...(checkpointId && { checkpoint_id: checkpointId }) } }))!.checkpoint.channel_values
          .audio;
      // LangGraph's serde passes a Uint8Array through as it is: a put is given the caller's bytes, and a read hands the caller the bytes it has.
      const audio = new Uint8Array(4096);
      const ids: string[] = [];
      for (const version of [1, 2]) {
        audio.fill(version);
        const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { audio }, channel_versions: { audio: version } };
        await saver.put(config, checkpoint, meta, { audio: version });
        ids.push(checkpoint.id);
      }
      audio.fill(3);
      const fresh = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      for (const reader of [fresh, saver]) {
        expect(filled(await audioOf(reader))).toEqual({ length: 4096, bytes: [2] });
        expect(filled(await audioOf(reader, ids[0]))).toEqual({ length: 4096, bytes: [1] });
      }
      // Read from its row, then from the value held: each changed by the caller, and read again.
      for (let round = 0; round < 2; round++) {
        const read = (await audioOf(fresh)) as Uint8Array;
        expect(filled(read)).toEqual({ length: 4096, bytes: [2] });
        read.fill(4);
      }
      expect(filled(await audioOf(fresh))).toEqual({ length: 4096, bytes: [2] });
    });

    test('a serde of yours decodes every value, and changing the bytes it gave or was given changes nothing stored', async () => {
      const tenant = `t-${randomUUID()}`;
      /** Remembers the bytes it gave and was given, to scribble over them once the call is done (a buffer reused, say). */
      class Careless extends JsonPlusSerializer {
        readonly #seen: Uint8Array[] = [];
        decoded = 0;
        override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
          const [type, bytes] = await super.dumpsTyped(value);
          this.#seen.push(bytes);
          return [type, bytes];
        }
        override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
          this.decoded++;
          if (data instanceof Uint8Array) this.#seen.push(data);
          return super.loadsTyped(type, data);
        }
        scribble() {
          for (const bytes of this.#seen.splice(0)) bytes.fill(0x20);
        }
      }
      const careless = new Careless();
      const writer = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      writer.serde = careless;
      const threadId = `careless-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const put: { id: string; messages: unknown[] }[] = [];
      let version: number | undefined;
      // Values of 2 KB or more are held. Each step reads the thread twice (the second read takes the values the writer holds), then grows it on what it read.
      for (let n = 1; n <= 8; n++) {
        const latest = await writer.getTuple(config);
        careless.scribble();
        if (n > 1) expect((await writer.getTuple(config))!.checkpoint.channel_values.messages).toEqual(messages(20 + n - 1));
        careless.scribble();
        version = writer.getNextVersion(version);
        const checkpoint: Checkpoint = {
          ...emptyCheckpoint(),
          id: uuid6(-1),
          channel_values: { messages: messages(20 + n) },
          channel_versions: { messages: version },
        };
        await writer.put(latest?.config ?? config, checkpoint, { ...meta, step: n }, { messages: version });
        careless.scribble();
        put.push({ id: checkpoint.id, messages: messages(20 + n) });
      }
      expect(careless.decoded).toBeGreaterThan(0);
      const reader = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      for (const { id, messages } of put) {
        expect((await reader.getTuple({ configurable: { ...config.configurable, checkpoint_id: id } }))!.checkpoint.channel_values.messages).toEqual(messages);
      }
    });

    test('a serde replaced while a put encodes: the bytes of the serde that encoded them are still copied', async () => {
      const tenant = `t-${randomUUID()}`;
      const writer = new LangGraphCheckpointer(store.integration).forTenant(tenant);
      const stock = writer.serde;
      /** Reuses its output buffer (scribbled over here after the put); the application puts the stock serde back while it encodes. */
      class Reusing extends JsonPlusSerializer {
        readonly given: Uint8Array[] = [];
        override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
          const [type, bytes] = await super.dumpsTyped(value);
          this.given.push(bytes);
          writer.serde = stock;
          return [type, bytes];
        }
      }
      const reusing = new Reusing();
      writer.serde = reusing;
      const config = { configurable: { thread_id: `swapped-${randomUUID()}`, checkpoint_ns: '' } };
      await writer.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: messages(30) }, channel_versions: { messages: 1 } }, meta, {
        messages: 1,
      });
      expect(reusing.given.length).toBeGreaterThan(0);
      for (const bytes of reusing.given) bytes.fill(0x20);
      // The writer holds the value it put: its read takes those bytes.
      expect((await writer.getTuple(config))!.checkpoint.channel_values.messages).toEqual(messages(30));
    });

    /** Versions 1 and 2 of the thread's messages, 2 a delta on 1 (made so by hand where puts store values whole). Returns version 2's value. */
    async function putDelta(saver: LangGraphCheckpointer, config: { configurable: { thread_id: string } }): Promise<unknown[]> {
      const first = messages(20);
      const grown = [...first, message(21)];
      for (const [version, values] of [
        [1, first],
        [2, grown],
      ] as const) {
        await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: values }, channel_versions: { messages: version } }, meta, {
          messages: version,
        });
      }
      if (!deltas) {
        const [one, two] = await Promise.all([saver.serde.dumpsTyped(first), saver.serde.dumpsTyped(grown)]).then((typed) => typed.map(([, bytes]) => bytes));
        const prefixLength = commonPrefixLength(one, two);
        const lane = { in: await lanesOf(config.configurable.thread_id) };
        await rows().agentLgBlob.updateMany({
          where: { lane, version: '2' },
          data: { value: new Uint8Array(two.subarray(prefixLength)), baseVersion: '1', prefixLength },
        });
      }
      return grown;
    }

    async function lanesOf(threadId: string): Promise<string[]> {
      const client = store.db.client as unknown as { agentLgCheckpoint: { findMany(query: object): Promise<{ lane: string }[]> } };
      return [...new Set((await client.agentLgCheckpoint.findMany({ where: { threadId }, select: { lane: true } })).map((row) => row.lane))];
    }
  });
});
