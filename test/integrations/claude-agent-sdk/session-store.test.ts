// The SDK's SessionStore conformance suite (./conformance.ts) on ClaudeSessionStore, on every
// database; each factory call is a store of a fresh tenant, as the suite wants a fresh, isolated
// store per test. Then what the store adds: uuids stored once, atomic deletes, tenants, bad input.
import { randomUUID } from 'node:crypto';
import { ClaudeSessionStore, type ClaudeSessionEntry } from '../../../src/integrations/claude-agent-sdk/index.js';
import { MAX_JSON_DEPTH, StoreNotFoundError, StoreValidationError } from '../../../src/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';
import { runSessionStoreConformance } from './conformance.js';

eachDatabase((database) => {
  const store = storeFor(database);
  const claude = () => new ClaudeSessionStore(store.integration);

  describe('SessionStore conformance', () => {
    runSessionStoreConformance(() => claude().forTenant(`conformance-${randomUUID()}`));
  });

  const entry = (type: string, extra: Record<string, unknown> = {}): ClaudeSessionEntry => ({ type, ...extra });
  const key = () => ({ projectKey: `project-${randomUUID()}`, sessionId: randomUUID() });

  test('a retried batch is stored once: entries with a uuid the transcript holds are skipped, those without are appended', async () => {
    const k = key();
    const batch = [entry('user', { uuid: 'u-1', message: 'hi' }), entry('assistant', { uuid: 'u-2' }), entry('custom-title', { title: 't' })];
    await claude().append(k, batch);
    await claude().append(k, batch);
    await claude().append(k, [entry('user', { uuid: 'u-3' }), entry('user', { uuid: 'u-3' })]);
    expect((await claude().load(k))!.map((e) => `${e.type}:${String(e.uuid ?? '-')}`)).toEqual([
      'user:u-1',
      'assistant:u-2',
      'custom-title:-',
      'custom-title:-',
      'user:u-3',
    ]);
  });

  test('eight batches at once with overlapping uuids (u(2w)..u(2w+9)), to a new transcript: none fails, each uuid is stored once', async () => {
    const k = key();
    const window = (w: number) => Array.from({ length: 10 }, (_, i) => entry('user', { uuid: `u${2 * w + i}` }));
    const settled = await Promise.allSettled(Array.from({ length: 8 }, (_, w) => claude().append(k, window(w))));
    expect(settled.filter((each) => each.status === 'rejected')).toEqual([]);
    const uuids = (await claude().load(k))!.map((e) => e.uuid as string);
    expect([...uuids].sort()).toEqual(Array.from({ length: 24 }, (_, i) => `u${i}`).sort());
  });

  test('entries come back as given: nested JSON, unicode, long uuids; a session of the store that SessionStore reads', async () => {
    const k = { projectKey: 'p'.repeat(240), sessionId: 's'.repeat(200), subpath: 'subagents/agent-' + 'x'.repeat(150) };
    const given = [entry('assistant', { uuid: 'u'.repeat(300), message: { content: [{ type: 'text', text: 'héllo 🌍' }] }, n: 1.5, ok: null })];
    await claude().append(k, given);
    expect(await claude().load(k)).toEqual(given);
    expect(await claude().listSubkeys(k)).toEqual([k.subpath]);
  });

  test('every entry a JSON round trip keeps comes back equal to that round trip: a lone surrogate (text cut mid-emoji), a "__proto__" key from JSON.parse, nesting MAX_JSON_DEPTH levels deep', async () => {
    const k = key();
    let deep: unknown = 'leaf';
    for (let level = 1; level < MAX_JSON_DEPTH; level++) deep = level % 2 ? [deep] : { d: deep };
    const given = [
      entry('assistant', { uuid: 'cut', message: { content: [{ type: 'text', text: '🌍'.slice(0, 1) }] }, ['\udc00 key']: '\ud800 and \udfff' }),
      JSON.parse('{"type":"user","uuid":"proto","__proto__":{"polluted":true},"nested":{"__proto__":[1]}}') as ClaudeSessionEntry,
      entry('attachment', { uuid: 'deep', deep }),
    ];
    const roundTrip = JSON.parse(JSON.stringify(given)) as ClaudeSessionEntry[];
    await claude().append(k, given);
    const loaded = (await claude().load(k))!;
    expect(loaded).toEqual(roundTrip);
    expect(JSON.stringify(loaded)).toBe(JSON.stringify(roundTrip));
    expect(Object.hasOwn(loaded[1], '__proto__') && Object.getPrototypeOf(loaded[1]) === Object.prototype).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    // The same entries again are the same uuids: stored once.
    await claude().append(k, given);
    expect(await claude().load(k)).toHaveLength(3);
    // A backup of the session restores them as they are: exportJsonl, then importJsonl under another id.
    const { id: sessionId } = (await store.sessions.list()).sessions.find((meta) => JSON.stringify(meta.metadata).includes(k.projectKey))!;
    let jsonl = '';
    for await (const line of store.sessions.exportJsonl(sessionId)) jsonl += line;
    const copy = `copy-${randomUUID()}`;
    await store.sessions.importJsonl(jsonl, { sessionId: copy });
    expect(JSON.stringify((await store.sessions.load(copy)).map((event) => (event as { data: unknown }).data))).toBe(JSON.stringify(roundTrip));
    // Its entries are JSON text alone: a line that gives one value types (a Date, say) is refused, and nothing is written.
    const [header, first] = jsonl.split('\n');
    const typed = { ...JSON.parse(first), valueTypes: [[['message', 'content'], 'Date']] };
    const refused = `copy-${randomUUID()}`;
    await expect(store.sessions.importJsonl(`${header}\n${JSON.stringify(typed)}\n`, { sessionId: refused })).rejects.toThrow(
      /holds JSON only: it has no valueTypes/,
    );
    expect(await store.sessions.get(refused)).toBeNull();
  });

  test('what a JSON round trip would change is a StoreValidationError for the whole batch: nesting past MAX_JSON_DEPTH, NaN, a Date, undefined in an array', async () => {
    const k = key();
    let deep: unknown = 'leaf';
    for (let level = 0; level < MAX_JSON_DEPTH; level++) deep = [deep];
    for (const bad of [{ deep }, { n: NaN }, { at: new Date() }, { list: [undefined] }]) {
      await expect(claude().append(k, [entry('user', { uuid: 'fine' }), entry('user', bad)])).rejects.toThrow(StoreValidationError);
    }
    expect(await claude().load(k)).toBeNull();
  });

  test('twenty appends to one key, called without waiting, are stored in call order (the contract: within a process, in append-call order)', async () => {
    const k = key();
    await Promise.all(Array.from({ length: 20 }, (_, n) => claude().append(k, [entry('user', { uuid: `u${n}`, n })])));
    expect((await claude().load(k))!.map((e) => e.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  test('deleting a main transcript deletes its subpaths atomically, and its key is not written again', async () => {
    const k = key();
    await claude().append(k, [entry('user')]);
    await claude().append({ ...k, subpath: 'subagents/a' }, [entry('user')]);
    await claude().delete(k);
    expect(await claude().load({ ...k, subpath: 'subagents/a' })).toBeNull();
    await expect(claude().append(k, [entry('user')])).rejects.toThrow(StoreNotFoundError);
    expect(await claude().load(k)).toBeNull();
  });

  test("tenants: one tenant's transcripts are not another's, even under the same key", async () => {
    const k = key();
    await claude()
      .forTenant('acme')
      .append(k, [entry('user', { text: 'acme' })]);
    expect(await claude().forTenant('globex').load(k)).toBeNull();
    expect(await claude().forTenant('globex').listSessions(k.projectKey)).toEqual([]);
    await claude().forTenant('globex').delete(k);
    expect(await claude().forTenant('acme').load(k)).toEqual([entry('user', { text: 'acme' })]);
    expect(await claude().load(k)).toBeNull();
    expect(() => claude().forTenant('acme').forTenant('globex')).toThrow(/already/);
  });

  test("the adapter's session ids are its own: the stores refuse to create or write one, and a session under one it did not make is never joined", async () => {
    const k = key();
    await claude()
      .forTenant('acme')
      .append(k, [entry('user', { text: 'acme secret' })]);
    const [id] = (await store.tenants.forTenant('acme').sessions.list()).sessions
      .map((session) => session.id)
      .filter((sessionId) => sessionId.startsWith('claude-agent-sdk:'));
    expect(id).toBeDefined();
    // Another tenant computing the id cannot take it, write into it or import into it; nor can the unscoped stores.
    const squatted = `claude-agent-sdk:${'0'.repeat(64)}`;
    await expect(store.tenants.forTenant('globex').sessions.create({ id: squatted })).rejects.toThrow(/keeps for its own sessions/);
    await expect(store.sessions.create({ id: squatted })).rejects.toThrow(StoreValidationError);
    await expect(store.messages.append(id, { role: 'user', content: 'forged' })).rejects.toThrow(StoreValidationError);
    await expect(store.sessions.update(id, { title: 'renamed' })).rejects.toThrow(StoreValidationError);
    await expect(store.transcripts.addSubsession(id, 'elsewhere')).rejects.toThrow(StoreValidationError);
    const jsonl = `${JSON.stringify({ type: 'session', version: 1, id, tenantId: null, title: null, metadata: null, createdAt: new Date().toISOString() })}\n`;
    await expect(store.sessions.importJsonl(jsonl)).rejects.toThrow(StoreValidationError);
    // Reading and deleting through the stores stays open.
    expect(await store.tenants.forTenant('acme').sessions.load(id)).toEqual([
      expect.objectContaining({ type: 'claude-agent-sdk.entry', data: entry('user', { text: 'acme secret' }) }),
    ]);
    expect(await claude().forTenant('acme').listSessions(k.projectKey)).toEqual([{ sessionId: k.sessionId, mtime: expect.any(Number) }]);
  });

  test('a message id or another kind of row never stands for an entry uuid; projects compare exactly, whatever their length', async () => {
    const k = { projectKey: 'proj-x', sessionId: randomUUID() };
    await claude().append(k, [entry('user', { uuid: 'u-0' })]);
    await claude().append({ ...k, projectKey: 'proj-x ' }, [entry('user', { uuid: 'u-0' })]);
    expect((await claude().listSessions('proj-x')).map((session) => session.sessionId)).toEqual([k.sessionId]);
    const long = { projectKey: 'p'.repeat(70_000), sessionId: 's' };
    await claude().append(long, [entry('user')]);
    expect(await claude().listSessions(long.projectKey)).toEqual([{ sessionId: 's', mtime: expect.any(Number) }]);
  });

  test('bad keys and entries are a StoreValidationError, and nothing of the batch is written', async () => {
    const k = key();
    await expect(claude().append(k, [entry('ok'), { text: 'no type' } as unknown as ClaudeSessionEntry])).rejects.toThrow(StoreValidationError);
    await expect(claude().append(k, [entry('ok', { f: () => 1 })])).rejects.toThrow(StoreValidationError);
    await expect(claude().append({ ...k, subpath: '' }, [entry('ok')])).rejects.toThrow(StoreValidationError);
    await expect(claude().append({ projectKey: '', sessionId: 's' }, [entry('ok')])).rejects.toThrow(StoreValidationError);
    await expect(claude().load(null as unknown as typeof k)).rejects.toThrow(StoreValidationError);
    expect(await claude().load(k)).toBeNull();
  });

  test("in the application's transaction: its entries commit and roll back with it", async () => {
    const k = key();
    const client = store.db.client as unknown as { $transaction<T>(work: (tx: object) => Promise<T>): Promise<T> };
    await expect(
      client.$transaction(async (tx) => {
        await claude()
          .withTransaction(tx)
          .append(k, [entry('user')]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await claude().load(k)).toBeNull();
  });
});
