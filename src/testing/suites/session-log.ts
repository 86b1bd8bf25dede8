// The sessions' log of the integration contract on every backend, as a binding uses it: its
// events in the store's sessions, kept exactly and in order, changed with the transaction's
// statements or not at all, scoped by tenant, refusing what the store cannot keep.
import { randomUUID } from 'node:crypto';
import { StoreConfigurationError, StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import type { IntegrationStore, NewEvent, SessionLog } from '../../contract/index.js';
import type { Suite } from '../kit.js';

export const sessionLog: Suite = ({ store, test, expect }) => {
  const fresh = () => `log-${randomUUID()}`;
  const write = <T>(work: (log: SessionLog) => Promise<T>, on: IntegrationStore = store.integration) => on.write(({ sessions }) => work(sessions));
  const events = (id: string, kinds = ['test.event', 'test.other'], on: IntegrationStore = store.integration) =>
    on.readSessions(({ sessions }) => sessions.events(id, { kinds }));

  test('appends events in order and reads them back exactly: key order, NUL, bytes, dates', async () => {
    const id = fresh();
    const value = { z: 1, a: 'x\u0000y', bytes: new Uint8Array([0, 255, 7]), at: new Date('2026-01-02T03:04:05.678Z'), nested: [{ b: 2, a: 1 }] };
    const seqs = await write((log) =>
      log.append(id, [
        { kind: 'test.event', key: 'k1', value },
        { kind: 'test.other', value: 'second' },
        { kind: 'test.event', value: null },
      ]),
    );
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2]);
    const read = await events(id);
    expect(read.map(({ seq, kind, key }) => ({ seq, kind, key }))).toEqual([
      { seq: seqs[0], kind: 'test.event', key: 'k1' },
      { seq: seqs[1], kind: 'test.other', key: null },
      { seq: seqs[2], kind: 'test.event', key: null },
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
        Array.from({ length: 6 }, (_, i): NewEvent => ({ kind: i % 2 ? 'test.other' : 'test.event', key: `k${i}`, value: i })),
      ),
    );
    const values = (query: Parameters<SessionLog['events']>[1]) =>
      store.integration.readSessions(({ sessions }) => sessions.events(id, query)).then((read) => read.map((event) => event.value));
    expect(await values({ kinds: ['test.event'] })).toEqual([0, 2, 4]);
    expect(await values({ kinds: ['test.event', 'test.other'], after: seqs[3] })).toEqual([4, 5]);
    expect(await values({ kinds: ['test.event', 'test.other'], keys: ['k5', 'k1', 'nope'] })).toEqual([1, 5]);
    expect(await values({ kinds: ['test.event', 'test.other'], last: 2 })).toEqual([4, 5]);
    expect(await values({ kinds: ['test.other'], last: 2 })).toEqual([3, 5]);
    expect(await values({ kinds: ['test.event'], last: 0 })).toEqual([]);
    expect(await values({ kinds: [] })).toEqual([]);
    expect(await values({ kinds: ['test.nothing'] })).toEqual([]);
  });

  test("a log's changes commit with the transaction's own statements, or none does", async () => {
    const id = fresh();
    await expect(
      write(async (log) => {
        await log.append(id, [{ kind: 'test.event', value: 1 }]);
        throw new StoreValidationError('the binding refused');
      }),
    ).rejects.toThrow('the binding refused');
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id)).toEqual([]);
  });

  test('a key is the session’s once: a second is a StoreConflictError and its batch is not kept; a dropped key is free again', async () => {
    const id = fresh();
    await write((log) => log.append(id, [{ kind: 'test.event', key: 'once', value: 1 }]));
    await expect(
      write((log) =>
        log.append(id, [
          { kind: 'test.other', value: 'kept?' },
          { kind: 'test.event', key: 'once', value: 2 },
        ]),
      ),
    ).rejects.toThrow(StoreConflictError);
    expect((await events(id)).map((event) => event.value)).toEqual([1]);

    await write((log) => log.rekind(id, { kind: 'test.event' }, { kind: 'test.dropped', dropKey: true }));
    await write((log) => log.append(id, [{ kind: 'test.event', key: 'once', value: 3 }]));
    const all = await store.integration.readSessions(({ sessions }) => sessions.events(id, { kinds: ['test.event', 'test.dropped'] }));
    expect(all.map(({ kind, key, value }) => ({ kind, key, value }))).toEqual([
      { kind: 'test.dropped', key: null, value: 1 },
      { kind: 'test.event', key: 'once', value: 3 },
    ]);
  });

  test('rekind changes only the seqs given, of the kind given, and keeps keys unless told', async () => {
    const id = fresh();
    const seqs = await write((log) =>
      log.append(
        id,
        [0, 1, 2].map((i): NewEvent => ({ kind: 'test.event', key: `k${i}`, value: i })),
      ),
    );
    await write((log) => log.rekind(id, { kind: 'test.event', seqs: [seqs[1], seqs[2] + 100] }, { kind: 'test.other' }));
    await write((log) => log.rekind(id, { kind: 'test.nothing', seqs: [seqs[0]] }, { kind: 'test.other' }));
    expect((await events(id)).map(({ kind, key }) => `${kind}/${key}`)).toEqual(['test.event/k0', 'test.other/k1', 'test.event/k2']);
  });

  test("a scoped store's sessions are its tenant's: another tenant neither sees nor writes them", async () => {
    const id = fresh();
    const acme = store.integration.forTenant(`acme-${randomUUID()}`);
    const globex = store.integration.forTenant(`globex-${randomUUID()}`);
    expect(await write((log) => log.open(id, { title: 'T', metadata: { b: 1, a: [true] } }), acme)).toEqual({ created: true });
    await write((log) => log.append(id, [{ kind: 'test.event', value: 'acme' }]), acme);
    const header = await acme.readSessions(({ sessions }) => sessions.session(id));
    expect(header).toMatchObject({ id, tenantId: acme.tenantId, title: 'T', metadata: { b: 1, a: [true] }, lastSeq: 1 });
    expect(header!.updatedAt).toBeInstanceOf(Date);
    expect(await write((log) => log.open(id), acme)).toEqual({ created: false });

    expect(await globex.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id, undefined, globex)).toEqual([]);
    expect(await write((log) => log.lock(id), globex)).toBe(false);
    await expect(write((log) => log.open(id), globex)).rejects.toThrow(StoreNotFoundError);
    await expect(write((log) => log.append(id, [{ kind: 'test.event', value: 'globex' }]), globex)).rejects.toThrow(StoreNotFoundError);
    await write((log) => log.rekind(id, { kind: 'test.event' }, { kind: 'test.other' }), globex);
    await write((log) => log.delete(id), globex);
    expect((await events(id, undefined, acme)).map(({ kind, value }) => `${kind}/${String(value)}`)).toEqual(['test.event/acme']);

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
      await log.append(first, [{ kind: 'test.event', value: 1 }]);
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
      await expect(write((log) => log.append(id, [{ kind: 'test.event', value: 2 }]))).rejects.toThrow(StoreNotFoundError);
    }
  });

  test('what the store cannot keep is a StoreValidationError, and nothing changes', async () => {
    const id = fresh();
    const refused = [
      { kind: 'event', value: 1 },
      { kind: '', value: 1 },
      { kind: 'a b.c', value: 1 },
      { kind: `test.${'x'.repeat(200)}`, value: 1 },
      { kind: 'test.event', key: 'k'.repeat(192), value: 1 },
      { kind: 'test.event', key: 'trailing ', value: 1 },
      { kind: 'test.event', key: '', value: 1 },
      { kind: 'test.event', value: () => 1 },
      { kind: 'test.event', value: { big: 10n } },
    ] as NewEvent[];
    for (const event of refused) {
      await expect(write((log) => log.append(id, [{ kind: 'test.event', value: 'first' }, event]))).rejects.toThrow(StoreValidationError);
    }
    await expect(write((log) => log.append(id, [{ kind: 'test.event', value: new Date(0) }], { jsonText: true }))).rejects.toThrow(StoreValidationError);
    await expect(write((log) => log.append(id, 'not a list' as unknown as NewEvent[]))).rejects.toThrow(StoreValidationError);
    await expect(write((log) => log.open(id, { metadata: { at: new Date() } }))).rejects.toThrow(StoreValidationError);
    await expect(store.integration.readSessions(({ sessions }) => sessions.events(id, { kinds: ['test.event'], last: -1 }))).rejects.toThrow(
      StoreValidationError,
    );
    await expect(store.integration.readSessions(({ sessions }) => sessions.session(''))).rejects.toThrow(StoreValidationError);
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
  });

  test('a call still running when work returns fails the write, and nothing of it commits', async () => {
    const id = fresh();
    await expect(
      write(async (log) => {
        void log.append(id, [{ kind: 'test.event', value: 'not awaited' }]);
      }),
    ).rejects.toThrow(StoreConfigurationError);
    expect(await store.integration.readSessions(({ sessions }) => sessions.session(id))).toBeUndefined();
    expect(await events(id)).toEqual([]);
  });

  test('hostile arguments are a StoreValidationError: holes, getters that throw, revoked proxies, null options', async () => {
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
      ['a hole', (log) => log.append(id, [, { kind: 'test.event', value: 1 }] as NewEvent[])],
      ['an array of one hole', (log) => log.append(id, new Array(1) as NewEvent[])],
      ['a throwing getter', (log) => log.append(id, [throwing as unknown as NewEvent])],
      ['a revoked proxy', (log) => log.append(id, revoked.proxy as NewEvent[])],
      ['null options', (log) => log.append(id, [{ kind: 'test.event', value: 1 }], null as unknown as undefined)],
      // eslint-disable-next-line no-sparse-arrays
      ['a hole in kinds', (log) => log.events(id, { kinds: [, 'test.event'] as string[] })],
      ['null query', (log) => log.events(id, null as unknown as { kinds: string[] })],
      ['null from', (log) => log.rekind(id, null as unknown as { kind: string }, { kind: 'test.other' })],
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
    await expect(kept!.append(id, [{ kind: 'test.event', value: 1 }])).rejects.toThrow(StoreConfigurationError);
    await expect(kept!.session(id)).rejects.toThrow(StoreConfigurationError);
    expect(await events(id)).toEqual([]);
  });

  test("the store's own readers see a binding's events as events of their kind", async () => {
    const id = fresh();
    await write((log) => log.append(id, [{ kind: 'test.event', value: { said: 'hello' } }]));
    const entries = await store.sessions.load(id);
    expect(entries).toEqual([expect.objectContaining({ type: 'test.event' })]);
  });
};
