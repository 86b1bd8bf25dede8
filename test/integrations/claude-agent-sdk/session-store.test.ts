// The SDK's SessionStore conformance suite (./conformance.ts) on ClaudeSessionStore, on every
// database; each factory call is a store of a fresh tenant, as the suite wants a fresh, isolated
// store per test. Then what the store adds: uuids stored once, atomic deletes, tenants, bad input.
import { randomUUID } from 'node:crypto';
import { ClaudeSessionStore, type ClaudeSessionEntry } from '../../../src/integrations/claude-agent-sdk/index.js';
import { StoreNotFoundError, StoreValidationError } from '../../../src/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';
import { runSessionStoreConformance } from './conformance.js';

eachDatabase((database) => {
  const store = storeFor(database);
  const claude = () => new ClaudeSessionStore(store.db);

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

  test('entries come back as given: nested JSON, unicode, long uuids; a session of the store that SessionStore reads', async () => {
    const k = { projectKey: 'p'.repeat(240), sessionId: 's'.repeat(200), subpath: 'subagents/agent-' + 'x'.repeat(150) };
    const given = [entry('assistant', { uuid: 'u'.repeat(300), message: { content: [{ type: 'text', text: 'héllo 🌍' }] }, n: 1.5, ok: null })];
    await claude().append(k, given);
    expect(await claude().load(k)).toEqual(given);
    expect(await claude().listSubkeys(k)).toEqual([k.subpath]);
  });

  test("deleting a main transcript deletes its subpaths atomically, and its key is not written again", async () => {
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
    await claude().forTenant('acme').append(k, [entry('user', { text: 'acme' })]);
    expect(await claude().forTenant('globex').load(k)).toBeNull();
    expect(await claude().forTenant('globex').listSessions(k.projectKey)).toEqual([]);
    await claude().forTenant('globex').delete(k);
    expect(await claude().forTenant('acme').load(k)).toEqual([entry('user', { text: 'acme' })]);
    expect(await claude().load(k)).toBeNull();
    expect(() => claude().forTenant('acme').forTenant('globex')).toThrow(/already/);
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
        await claude().withTransaction(tx).append(k, [entry('user')]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await claude().load(k)).toBeNull();
  });
});
