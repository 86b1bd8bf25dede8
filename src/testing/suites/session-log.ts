// The sessions' log of the integration contract on every backend, as a binding uses it: its
// events in the store's sessions, kept exactly and in order, changed with the transaction's
// statements or not at all, scoped by tenant, refusing what the store cannot keep.
import { randomUUID } from 'node:crypto';
import { StoreConfigurationError, StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import type { IntegrationStore, NewEvent, SessionLog } from '../../contract/index.js';
import '../kit-binding.js';
import type { Suite } from '../kit.js';

/**
 * The sessions' log of the integration contract as a binding uses it: its events kept exactly and in order,
 * changed with the transaction's statements or not at all, scoped by tenant, refusing what the store cannot
 * keep.
 */
export const sessionLog: Suite = ({ store, describe, test, expect }) => {
  const fresh = () => `log-${randomUUID()}`;
  const write = <T>(work: (log: SessionLog) => Promise<T>, on: IntegrationStore = store.integration) => on.write(({ sessions }) => work(sessions));
  const events = (id: string, kinds = ['conformance-kit.event', 'conformance-kit.other'], on: IntegrationStore = store.integration) =>
    on.readSessions(({ sessions }) => sessions.events(id, { kinds }));

  test('appends events in order and reads them back exactly: key order, NUL, bytes, dates', async () => {
    const id = fresh();
    const value = { z: 1, a: 'x\u0000y', bytes: new Uint8Array([0, 255, 7]), at: new Date('2026-01-02T03:04:05.678Z'), nested: [{ b: 2, a: 1 }] };
    const seqs = await write((log) =>
      log.append(id, [
        { kind: 'conformance-kit.event', key: 'k1', value },
        { kind: 'conformance-kit.other', value: 'second' },
        { kind: 'conformance-kit.event', value: null },
      ]),
    );
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2]);
    const read = await events(id);
    expect(read.map(({ seq, kind, key }) => ({ seq, kind, key }))).toEqual([
      { seq: seqs[0], kind: 'conformance-kit.event', key: 'k1' },
      { seq: seqs[1], kind: 'conformance-kit.other', key: null },
      { seq: seqs[2], kind: 'conformance-kit.event', key: null },
    ]);
    expect(read[0].value).toEqual(value);
    expect(Object.keys(read[0].value as object)).toEqual(['z', 'a', 'bytes', 'at', 'nested']);
    expect(Object.keys((read[0].value as typeof value).nested[0])).toEqual(['b', 'a']);
    expect((read[0].value as typeof value).at).toBeInstanceOf(Date);
  });

  test('events selects by kind, after a seq, by key and the newest few, oldest first', async () => {
    const id = fresh();
    const seqs = await write((log) =>
      log.append(
        id,
        Array.from({ length: 6 }, (_, i): NewEvent => ({ kind: i % 2 ? 'conformance-kit.other' : 'conformance-kit.event', key: `k${i}`, value: i })),
      ),
    );
    const values = (query: Parameters<SessionLog['events']>[1]) =>
      store.integration.readSessions(({ sessions }) => sessions.events(id, query)).then((read) => read.map((event) => event.value));
    expect(await values({ kinds: ['conformance-kit.event'] })).toEqual([0, 2, 4]);
    expect(await values({ kinds: ['conformance-kit.event', 'conformance-kit.other'], after: seqs[3] })).toEqual([4, 5]);
    expect(await values({ kinds: ['conformance-kit.event', 'conformance-kit.other'], keys: ['k5', 'k1', 'nope'] })).toEqual([1, 5]);
    expect(await values({ kinds: ['conformance-kit.event', 'conformance-kit.other'], last: 2 })).toEqual([4, 5]);
    expect(await values({ kinds: ['conformance-kit.other'], last: 2 })).toEqual([3, 5]);
    expect(await values({ kinds: ['conformance-kit.event'], last: 0 })).toEqual([]);
    expect(await values({ kinds: [] })).toEqual([]);
    expect(await values({ kinds: ['conformance-kit.nothing'] })).toEqual([]);
  });

  test("a log's changes commit with the transaction's own statements, or none does", async () => {
    const id = fresh();
    await expect(
      write(async (log) => {
        await log.append(id, [{ kind: 'conformance-kit.event', value: 1 }]);
        throw new StoreValidationError('the binding refused');
      }),
    ).rejects.toThrow('the binding refused');
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id)).toEqual([]);
  });

  test('a key is the session’s once: a second is a StoreConflictError and its batch is not kept; a dropped key is free again', async () => {
    const id = fresh();
    await write((log) => log.append(id, [{ kind: 'conformance-kit.event', key: 'once', value: 1 }]));
    await expect(
      write((log) =>
        log.append(id, [
          { kind: 'conformance-kit.other', value: 'kept?' },
          { kind: 'conformance-kit.event', key: 'once', value: 2 },
        ]),
      ),
    ).rejects.toThrow(StoreConflictError);
    expect((await events(id)).map((event) => event.value)).toEqual([1]);

    await write((log) => log.rekind(id, { kind: 'conformance-kit.event' }, { kind: 'conformance-kit.dropped', dropKey: true }));
    await write((log) => log.append(id, [{ kind: 'conformance-kit.event', key: 'once', value: 3 }]));
    const all = await store.integration.readSessions(({ sessions }) => sessions.events(id, { kinds: ['conformance-kit.event', 'conformance-kit.dropped'] }));
    expect(all.map(({ kind, key, value }) => ({ kind, key, value }))).toEqual([
      { kind: 'conformance-kit.dropped', key: null, value: 1 },
      { kind: 'conformance-kit.event', key: 'once', value: 3 },
    ]);
  });

  test('rekind changes only the seqs given, of the kind given, and keeps keys unless told', async () => {
    const id = fresh();
    const seqs = await write((log) =>
      log.append(
        id,
        [0, 1, 2].map((i): NewEvent => ({ kind: 'conformance-kit.event', key: `k${i}`, value: i })),
      ),
    );
    await write((log) => log.rekind(id, { kind: 'conformance-kit.event', seqs: [seqs[1], seqs[2] + 100] }, { kind: 'conformance-kit.other' }));
    await write((log) => log.rekind(id, { kind: 'conformance-kit.dropped', seqs: [seqs[0]] }, { kind: 'conformance-kit.other' }));
    expect((await events(id)).map(({ kind, key }) => `${kind}/${key}`)).toEqual([
      'conformance-kit.event/k0',
      'conformance-kit.other/k1',
      'conformance-kit.event/k2',
    ]);
  });

  test("a scoped store's sessions are its tenant's: another tenant neither sees nor writes them", async () => {
    const id = fresh();
    const acme = store.integration.forTenant(`acme-${randomUUID()}`);
    const globex = store.integration.forTenant(`globex-${randomUUID()}`);
    expect(await write((log) => log.open(id, { title: 'T', metadata: { b: 1, a: [true] } }), acme)).toEqual({ created: true });
    await write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 'acme' }]), acme);
    const header = await acme.readSessions(({ sessions }) => sessions.session(id));
    expect(header).toMatchObject({ id, tenantId: acme.tenantId, title: 'T', metadata: { b: 1, a: [true] }, lastSeq: 1 });
    expect(header!.updatedAt).toBeInstanceOf(Date);
    expect(await write((log) => log.open(id), acme)).toEqual({ created: false });

    expect(await globex.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id, undefined, globex)).toEqual([]);
    expect(await write((log) => log.lock(id), globex)).toBe(false);
    await expect(write((log) => log.open(id), globex)).rejects.toThrow(StoreNotFoundError);
    await expect(write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 'globex' }]), globex)).rejects.toThrow(StoreNotFoundError);
    await write((log) => log.rekind(id, { kind: 'conformance-kit.event' }, { kind: 'conformance-kit.other' }), globex);
    await write((log) => log.delete(id), globex);
    expect((await events(id, undefined, acme)).map(({ kind, value }) => `${kind}/${String(value)}`)).toEqual(['conformance-kit.event/acme']);

    // Unscoped, any session is there by id; a list is of sessions of no tenant.
    expect((await events(id)).length).toBe(1);
    const title = `list-${randomUUID()}`;
    const untenanted = fresh();
    await write((log) => log.open(untenanted, { title }));
    await write((log) => log.open(fresh(), { title }), acme);
    const listed = (on: IntegrationStore) =>
      on.readSessions(({ sessions }) => sessions.sessions({ title })).then((found) => found.map((session) => session.id));
    expect(await listed(store.integration)).toEqual([untenanted]);
    expect(await listed(acme)).toHaveLength(1);
    expect(await listed(globex)).toEqual([]);
  });

  test('sessions lists by title, id prefix, roots and non-empty; children in the order attached; delete takes the subtree for good', async () => {
    const title = `tree-${randomUUID()}`;
    const prefix = `${randomUUID()}:`;
    const [root, first, second] = [`${prefix}root`, `${prefix}a`, `${prefix}b`];
    await write(async (log) => {
      for (const id of [root, second, first]) await log.open(id, { title });
      await log.attach(root, second);
      await log.attach(root, first);
      await log.attach(root, first);
      await log.append(first, [{ kind: 'conformance-kit.event', value: 1 }]);
    });
    const list = (query: Omit<Parameters<SessionLog['sessions']>[0], 'title'>) =>
      store.integration.readSessions(({ sessions }) => sessions.sessions({ title, ...query })).then((found) => found.map((session) => session.id).sort());
    expect(await list({})).toEqual([root, first, second].sort());
    expect(await list({ roots: true })).toEqual([root]);
    expect(await list({ nonEmpty: true })).toEqual([first]);
    expect(await list({ idPrefix: `${prefix}a` })).toEqual([first]);
    expect(await list({ idPrefix: `${prefix}A` })).toEqual([]);
    expect((await store.integration.readSessions(({ sessions }) => sessions.children(root))).map((session) => session.id)).toEqual([second, first]);

    await expect(write((log) => log.attach(first, root))).rejects.toThrow(StoreConflictError);
    await expect(write((log) => log.attach(fresh(), first))).rejects.toThrow(StoreConflictError);

    await write((log) => log.delete(root));
    expect(await list({})).toEqual([]);
    expect(await events(first)).toEqual([]);
    for (const id of [root, first]) {
      await expect(write((log) => log.open(id))).rejects.toThrow(StoreNotFoundError);
      await expect(write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 2 }]))).rejects.toThrow(StoreNotFoundError);
    }
  });

  test('what the store cannot keep is a StoreValidationError, and nothing changes', async () => {
    const id = fresh();
    const refused = [
      { kind: 'event', value: 1 },
      { kind: '', value: 1 },
      { kind: 'a b.c', value: 1 },
      { kind: `conformance-kit.${'x'.repeat(200)}`, value: 1 },
      { kind: 'conformance-kit.event', key: 'k'.repeat(192), value: 1 },
      { kind: 'conformance-kit.event', key: 'trailing ', value: 1 },
      { kind: 'conformance-kit.event', key: '', value: 1 },
      { kind: 'conformance-kit.event', value: () => 1 },
      { kind: 'conformance-kit.event', value: { big: 10n } },
    ] as NewEvent[];
    for (const event of refused) {
      await expect(write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 'first' }, event]))).rejects.toThrow(StoreValidationError);
    }
    await expect(write((log) => log.append(id, [{ kind: 'conformance-kit.text', value: new Date(0) }]))).rejects.toThrow(StoreValidationError);
    await expect(write((log) => log.append(id, 'not a list' as unknown as NewEvent[]))).rejects.toThrow(StoreValidationError);
    await expect(write((log) => log.open(id, { metadata: { at: new Date() } }))).rejects.toThrow(StoreValidationError);
    await expect(store.integration.readSessions(({ sessions }) => sessions.events(id, { kinds: ['conformance-kit.event'], last: -1 }))).rejects.toThrow(
      StoreValidationError,
    );
    await expect(store.integration.readSessions(({ sessions }) => sessions.session(''))).rejects.toThrow(StoreValidationError);
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
  });

  test('a call still running when work returns fails the write, and nothing of it commits', async () => {
    const id = fresh();
    await expect(
      write(async (log) => {
        void log.append(id, [{ kind: 'conformance-kit.event', value: 'not awaited' }]);
      }),
    ).rejects.toThrow(StoreConfigurationError);
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id)).toEqual([]);
  });

  test('hostile arguments are a StoreValidationError: holes, getters that throw, revoked proxies, null arguments', async () => {
    const id = fresh();
    const throwing = Object.defineProperty({ value: 1 }, 'kind', {
      get() {
        throw new Error('boom');
      },
    });
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    const hostile: [string, (log: SessionLog) => Promise<unknown>][] = [
      // eslint-disable-next-line no-sparse-arrays
      ['a hole', (log) => log.append(id, [, { kind: 'conformance-kit.event', value: 1 }] as NewEvent[])],
      ['an array of one hole', (log) => log.append(id, new Array(1) as NewEvent[])],
      ['a throwing getter', (log) => log.append(id, [throwing as unknown as NewEvent])],
      ['a revoked proxy', (log) => log.append(id, revoked.proxy as NewEvent[])],
      ['null events', (log) => log.append(id, null as unknown as NewEvent[])],
      // eslint-disable-next-line no-sparse-arrays
      ['a hole in kinds', (log) => log.events(id, { kinds: [, 'conformance-kit.event'] as string[] })],
      ['null query', (log) => log.events(id, null as unknown as { kinds: string[] })],
      ['null from', (log) => log.rekind(id, null as unknown as { kind: string }, { kind: 'conformance-kit.other' })],
      ['a metadata array', (log) => log.open(id, { metadata: [] as unknown as Record<string, unknown> })],
    ];
    for (const [what, call] of hostile) await expect(write(call).then(() => what)).rejects.toThrow(StoreValidationError);
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
  });

  test("the log refuses once its transaction's work has returned", async () => {
    let kept: SessionLog | undefined;
    await write(async (log) => {
      kept = log;
    });
    const id = fresh();
    await expect(kept!.append(id, [{ kind: 'conformance-kit.event', value: 1 }])).rejects.toThrow(StoreConfigurationError);
    await expect(kept!.session(id)).rejects.toThrow(StoreConfigurationError);
    expect(await events(id)).toEqual([]);
  });

  test("the store's own readers see a binding's events as events of their kind", async () => {
    const id = fresh();
    await write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: { said: 'hello' } }]));
    const entries = await store.sessions.load(id);
    expect(entries).toEqual([expect.objectContaining({ type: 'conformance-kit.event' })]);
  });

  describe("a binding's declared kinds and session ids", () => {
    const exported = async (id: string) => {
      let text = '';
      for await (const line of store.sessions.exportJsonl(id)) text += line;
      return text;
    };
    const allEvents = (id: string) =>
      events(id, [
        'conformance-kit.event',
        'conformance-kit.text',
        'conformance-kit.keyed',
        'conformance-kit.other',
        'conformance-kit.dropped',
        'conformance-kit.plain',
      ]);

    test('the log takes only kinds a binding declared, each holding what it declares, under the key its binding gives', async () => {
      const id = fresh();
      // A value that reads one way when checked and another when stored: the checks read it as stored.
      let reads = 0;
      const shifty = Object.defineProperty({}, 'id', { enumerable: true, get: () => (++reads > 1 ? 7 : 'a') });
      const refused: NewEvent[] = [
        { kind: 'conformance-kit.undeclared', value: 1 },
        { kind: 'no-such-binding.event', value: 1 },
        { kind: 'CONFORMANCE-KIT.event', value: 1 },
        { kind: 'conformance-kit.keyed', key: 'k:a', value: { id: 7 } },
        { kind: 'conformance-kit.keyed', key: 'k:other', value: { id: 'a' } },
        { kind: 'conformance-kit.keyed', key: null, value: { id: 'a' } },
        { kind: 'conformance-kit.keyed', value: { id: 'x'.repeat(200) } },
        { kind: 'conformance-kit.keyed', value: { id: 'trailing ' } },
        { kind: 'conformance-kit.keyed', value: shifty },
        { kind: 'conformance-kit.plain', key: 'k:any', value: 1 },
        { kind: 'conformance-kit.text', value: { bytes: new Uint8Array([1]) } },
      ];
      for (const event of refused) {
        await expect(write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 'first' }, event]))).rejects.toThrow(StoreValidationError);
      }
      expect(await events(id)).toEqual([]);
      // Without a key, a keyed kind's event gets the one its binding gives it.
      await write((log) => log.append(id, [{ kind: 'conformance-kit.keyed', value: { id: 'a' } }]));
      await write((log) => log.append(id, [{ kind: 'conformance-kit.plain', key: null, value: 2 }]));
      expect((await allEvents(id)).map(({ kind, key }) => [kind, key])).toEqual([
        ['conformance-kit.keyed', 'k:a'],
        ['conformance-kit.plain', null],
      ]);
      // Kinds that keep, or hold, or key differently: a rekind between them would leave events their kind does not describe.
      await write((log) => log.append(id, [{ kind: 'conformance-kit.event', key: 'e:1', value: 1 }]));
      for (const to of ['conformance-kit.text', 'conformance-kit.keyed', 'conformance-kit.plain', 'conformance-kit.undeclared']) {
        await expect(write((log) => log.rekind(id, { kind: 'conformance-kit.event' }, { kind: to }))).rejects.toThrow(StoreValidationError);
      }
      await expect(write((log) => log.rekind(id, { kind: 'conformance-kit.keyed' }, { kind: 'conformance-kit.plain' }))).rejects.toThrow(StoreValidationError);
      await write((log) => log.rekind(id, { kind: 'conformance-kit.event' }, { kind: 'conformance-kit.other' }));
      await write((log) => log.rekind(id, { kind: 'conformance-kit.other' }, { kind: 'conformance-kit.plain', dropKey: true }));
      expect((await allEvents(id)).map(({ kind, key, value }) => [kind, key, value])).toEqual([
        ['conformance-kit.keyed', 'k:a', { id: 'a' }],
        ['conformance-kit.plain', null, 2],
        ['conformance-kit.plain', null, 1],
      ]);
    });

    test('no one but the binding writes its kinds or makes sessions under its prefix: the stores refuse them, and change nothing', async () => {
      const id = fresh();
      await write((log) => log.append(id, [{ kind: 'conformance-kit.event', value: 'the binding' }]));
      for (const type of ['conformance-kit.event', 'conformance-kit.keyed', 'conformance-kit.anything']) {
        await expect(store.sessions.append(id, { type, data: { forged: true } })).rejects.toThrow(StoreValidationError);
      }
      const reserved = `conformance-kit:${randomUUID()}`;
      await expect(store.sessions.create({ id: reserved })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.append(reserved, { role: 'user', content: 'x' })).rejects.toThrow(StoreValidationError);
      await expect(store.transcripts.saveTranscript(reserved, { messages: [] })).rejects.toThrow(StoreValidationError);
      expect(await store.sessions.get(reserved)).toBeNull();
      expect((await allEvents(id)).map(({ value }) => value)).toEqual(['the binding']);
      // The binding itself makes its sessions there.
      await write((log) => log.append(reserved, [{ kind: 'conformance-kit.event', value: 'mine' }]));
      expect((await allEvents(reserved)).map(({ value }) => value)).toEqual(['mine']);
    });

    test('a JSONL export and import give back its events as written: JSON text with a __proto__ key, bytes, dates, URLs, and keys', async () => {
      const id = fresh();
      const text = JSON.parse('{"__proto__":{"polluted":true},"z":1,"a":"\\ud800 kept"}') as unknown;
      const value = {
        at: new Date('2026-03-04T05:06:07.089Z'),
        bytes: new Uint8Array([0, 1, 255]),
        url: new URL('https://example.com/a?b=c'),
        n: [1, { y: 2, x: 1 }],
      };
      await write((log) =>
        log.append(id, [
          { kind: 'conformance-kit.text', key: 'e:text', value: text },
          { kind: 'conformance-kit.event', value },
          { kind: 'conformance-kit.keyed', key: 'k:a', value: { id: 'a', at: new Date(0) } },
        ]),
      );
      const copy = fresh();
      const file = await exported(id);
      await store.sessions.importJsonl(file, { sessionId: copy });
      const [before, after] = [await allEvents(id), await allEvents(copy)];
      expect(after.map(({ seq, kind, key }) => ({ seq, kind, key }))).toEqual(before.map(({ seq, kind, key }) => ({ seq, kind, key })));
      expect(after.map(({ value }) => value)).toEqual(before.map(({ value }) => value));
      expect(Object.hasOwn(after[0].value as object, '__proto__')).toBe(true);
      expect(Object.keys(after[0].value as object)).toEqual(['__proto__', 'z', 'a']);
      expect((after[1].value as typeof value).bytes).toEqual(new Uint8Array([0, 1, 255]));
      expect((after[1].value as typeof value).url).toBeInstanceOf(URL);
      expect((await exported(copy)).split('\n').slice(1)).toEqual(file.split('\n').slice(1));
      // A line without the key its binding gives gets it back: the binding finds the event by key.
      const keyless = file
        .split('\n')
        .map((line) => (line.includes('"k:a"') ? JSON.stringify({ ...(JSON.parse(line) as object), key: undefined }) : line))
        .join('\n');
      const third = fresh();
      await store.sessions.importJsonl(keyless, { sessionId: third });
      expect((await allEvents(third)).map(({ key }) => key)).toEqual(['e:text', null, 'k:a']);
    });

    test('an import refuses a line its binding would not have written, and imports nothing', async () => {
      const id = fresh();
      await write((log) => log.append(id, [{ kind: 'conformance-kit.keyed', key: 'k:a', value: { id: 'a' } }]));
      const file = await exported(id);
      const [header, line] = file.split('\n');
      const entry = JSON.parse(line) as Record<string, unknown>;
      const variants: Record<string, unknown>[] = [
        { ...entry, key: 'k:b' },
        { ...entry, event: { type: 'conformance-kit.keyed', data: { id: 1 } }, key: undefined },
        { ...entry, event: { type: 'conformance-kit.undeclared', data: {} }, key: undefined },
        { ...entry, event: { type: 'CONFORMANCE-KIT.keyed', data: { id: 'a' } }, key: undefined },
        { ...entry, event: { type: 'conformance-kit.plain', data: 1 }, key: 'k:any' },
        { ...entry, event: { type: 'conformance-kit.keyed', data: { id: 'x'.repeat(200) } }, key: undefined },
        { ...entry, event: { type: 'conformance-kit.checked', data: {} }, key: undefined },
        { ...entry, event: { type: 'conformance-kit.text', data: 'x' }, key: undefined, valueTypes: [[[], 'date']] },
        { ...entry, event: { type: 'conformance-kit.event', data: 'x' }, key: undefined, valueTypes: [[[], 'bigint']] },
        { ...entry, event: { type: 'conformance-kit.event', data: 'not a date' }, key: undefined, valueTypes: [[[], 'date']] },
        { ...entry, event: { type: 'app.event', data: { bytes: 'AA==' } }, key: undefined, valueTypes: [[['bytes'], 'bytes']] },
        // A key is a binding's: one on the app's kind would be forged for a binding this process does not load.
        { ...entry, event: { type: 'app.event', data: { name: 'role', value: 'admin' } }, key: 's:forged' },
      ];
      for (const variant of variants) {
        const copy = fresh();
        await expect(store.sessions.importJsonl(`${header}\n${JSON.stringify(variant)}\n`, { sessionId: copy })).rejects.toThrow(StoreValidationError);
        expect(await store.sessions.get(copy)).toBeNull();
      }
    });
  });
};
