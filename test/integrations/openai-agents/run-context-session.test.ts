// OpenAIAgentsSessions.forRunContext: the SDK's RunContextAwareSession (SDK 0.15 and later), each
// call scoped to the tenant the run's context names, as forTenant scopes it. The runner of SDK 0.15
// and later passes its RunContext (the SDK's own example: a tenant id in the context); SDK 0.14
// (Node 20) passes none, and a call without one is refused and changes nothing.
import { randomUUID } from 'node:crypto';
import * as sdk from '@openai/agents-core';
import { Agent, RunContext, run, setDefaultModelProvider, Usage, type AgentInputItem } from '@openai/agents-core';
import { StoreConfigurationError, StoreNotFoundError, StoreValidationError } from '../../../src/index.js';
import { OpenAIAgentsSessions } from '../../../src/integrations/openai-agents/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';
import { RecordingModel, texts } from './recording-model.js';
import { FakeModelProvider, fakeModelMessage } from './sdk-stubs.js';

type TenantContext = { tenantId: string };

const user = (text: string): AgentInputItem => ({ role: 'user', content: text });
/** Present from SDK 0.15, whose runner passes the run context to sessions that ask for it. */
const isRunContextAwareSession = Reflect.get(sdk, 'isRunContextAwareSession') as ((session: unknown) => boolean) | undefined;
const runnerPassesRunContext = typeof isRunContextAwareSession === 'function';

eachDatabase((database) => {
  const store = storeFor(database);
  const sessions = () => new OpenAIAgentsSessions(store.integration);
  const fresh = (name: string) => `${name}-${randomUUID()}`;
  const byTenant = { tenantOf: (context: TenantContext) => context.tenantId };
  const contextOf = (tenantId: string) => new RunContext<TenantContext>({ tenantId });

  beforeAll(() => setDefaultModelProvider(new FakeModelProvider()));

  if (runnerPassesRunContext) {
    test("run() (SDK 0.15 and later): the session is the run context's tenant's, and another tenant's run neither sees nor writes it", async () => {
      const id = fresh('run');
      const session = sessions().forRunContext(id, byTenant);
      expect(isRunContextAwareSession?.(session)).toBe(true);
      const model = new RecordingModel([
        { output: [fakeModelMessage('Noted: green.')], usage: new Usage() },
        { output: [fakeModelMessage('Green.')], usage: new Usage() },
      ]);
      const agent = new Agent<TenantContext>({ name: 'Assistant', model });

      await run(agent, 'My favourite colour is green.', { session, context: { tenantId: 'acme' } });
      const second = await run(agent, 'What is my favourite colour?', { session, context: { tenantId: 'acme' } });
      expect(second.finalOutput).toBe('Green.');
      // The second turn's model call was given the first turn, read in the tenant.
      expect(texts(model.requests[1].input as AgentInputItem[]).slice(0, 1)).toEqual(['My favourite colour is green.']);
      expect(await sessions().forTenant('acme').forSession(id).getItems()).toHaveLength(4);
      expect(await store.tenants.forTenant('acme').sessions.get(id)).toMatchObject({ id, tenantId: 'acme' });

      const other = new Agent<TenantContext>({ name: 'Assistant', model: new RecordingModel([{ output: [fakeModelMessage('?')], usage: new Usage() }]) });
      await expect(run(other, 'What did acme say?', { session, context: { tenantId: 'globex' } })).rejects.toThrow(StoreNotFoundError);
      expect(await session.getItems(undefined, contextOf('globex'))).toEqual([]);
      expect(await sessions().forTenant('acme').forSession(id).getItems()).toHaveLength(4);
    });
  } else {
    test('run() (SDK 0.14, which passes no run context): refused with a StoreConfigurationError, nothing written', async () => {
      const id = fresh('run');
      const session = sessions().forRunContext(id, byTenant);
      const agent = new Agent<TenantContext>({ name: 'Assistant', model: new RecordingModel([{ output: [fakeModelMessage('Noted.')], usage: new Usage() }]) });
      await expect(run(agent, 'My favourite colour is green.', { session, context: { tenantId: 'acme' } })).rejects.toThrow(StoreConfigurationError);
      expect(await store.sessions.get(id)).toBeNull();
      expect(await sessions().forSession(id).getItems()).toEqual([]);
    });
  }

  test("every history call is the session's in the run context's tenant, as forTenant's", async () => {
    const id = fresh('calls');
    const session = sessions().forRunContext(id, byTenant);
    const acme = contextOf('acme');
    const inAcme = () => sessions().forTenant('acme').forSession(id);

    await session.addItems([user('a'), user('b'), user('c')], acme);
    expect(await store.tenants.forTenant('acme').sessions.get(id)).toMatchObject({ id, tenantId: 'acme' });
    expect(texts(await session.getItems(undefined, acme))).toEqual(['a', 'b', 'c']);
    expect(texts(await session.getItems(2, acme))).toEqual(['b', 'c']);
    expect(await session.popItem(acme)).toEqual(user('c'));
    expect(texts(await inAcme().getItems())).toEqual(['a', 'b']);

    await session.replaceHistoryWithCompaction([{ type: 'compaction', encrypted_content: 'summary-of-a' } as AgentInputItem, user('b')], acme);
    expect(texts(await inAcme().getItems())).toEqual(['compaction', 'b']);
    const once = { operationId: 'turn-1', transaction: { type: 'append_items' as const, items: [user('once')] } };
    await session.applyHistoryTransaction(once, acme);
    await session.applyHistoryTransaction(once, acme);
    expect(texts(await inAcme().getItems())).toEqual(['compaction', 'b', 'once']);

    // Another tenant: the id reads as empty, and writes are refused, as forTenant's are.
    const globex = contextOf('globex');
    expect(await session.getItems(undefined, globex)).toEqual([]);
    await expect(session.addItems([user('theirs')], globex)).rejects.toThrow(StoreNotFoundError);
    expect(await session.popItem(globex)).toBeUndefined();
    await session.clearSession(globex);
    expect(texts(await inAcme().getItems())).toEqual(['compaction', 'b', 'once']);

    await session.clearSession(acme);
    expect(await inAcme().getItems()).toEqual([]);
    expect(await session.getSessionId()).toBe(id);
  });

  test('a call without a run context is a StoreConfigurationError and reads or writes nothing, never the unscoped session', async () => {
    const id = fresh('no-context');
    const session = sessions().forRunContext(id, byTenant);
    const acme = contextOf('acme');
    await session.addItems([user('kept')], acme);
    const compaction = { type: 'compaction', encrypted_content: 'x' } as AgentInputItem;
    const transaction = { operationId: 'turn-1', transaction: { type: 'append_items' as const, items: [user('no')] } };
    // No context, as SDK 0.14 calls; and a bare context object, which is not a RunContext.
    for (const runContext of [undefined, { tenantId: 'acme' } as unknown as RunContext<TenantContext>]) {
      await expect(session.getItems(undefined, runContext)).rejects.toThrow(StoreConfigurationError);
      await expect(session.addItems([user('no')], runContext)).rejects.toThrow(StoreConfigurationError);
      await expect(session.popItem(runContext)).rejects.toThrow(StoreConfigurationError);
      await expect(session.clearSession(runContext)).rejects.toThrow(StoreConfigurationError);
      await expect(session.replaceHistoryWithCompaction([compaction], runContext)).rejects.toThrow(StoreConfigurationError);
      await expect(session.applyHistoryTransaction(transaction, runContext)).rejects.toThrow(StoreConfigurationError);
    }
    await expect(session.getItems()).rejects.toThrow(/forTenant\(tenantId\)\.forSession\(sessionId\)/);
    expect(texts(await sessions().forTenant('acme').forSession(id).getItems())).toEqual(['kept']);
    // A session never created stays uncreated.
    const untouched = fresh('no-context-new');
    await expect(
      sessions()
        .forRunContext(untouched, byTenant)
        .addItems([user('no')]),
    ).rejects.toThrow(StoreConfigurationError);
    expect(await store.sessions.get(untouched)).toBeNull();
  });

  test('a tenant the context cannot name is a StoreValidationError, and nothing is written', async () => {
    const id = fresh('bad-tenant');
    const secret = new Error('sk-live-SECRET');
    const throwing = sessions().forRunContext<TenantContext>(id, {
      tenantOf: () => {
        throw secret;
      },
    });
    const error = await throwing.addItems([user('no')], contextOf('acme')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreValidationError);
    expect((error as Error).message).not.toContain('SECRET');
    expect((error as Error).cause).toBe(secret);

    const returning = (value: unknown) => sessions().forRunContext<TenantContext>(id, { tenantOf: () => value as string });
    for (const value of [42, '', undefined, null, 'x'.repeat(1000), 'acme ', Promise.resolve('acme'), { toString: () => 'acme' }]) {
      await expect(returning(value).addItems([user('no')], contextOf('acme'))).rejects.toThrow(StoreValidationError);
      await expect(returning(value).getItems(undefined, contextOf('acme'))).rejects.toThrow(StoreValidationError);
    }
    // The context run() was given none of: tenantOf reads an undefined context.
    await expect(
      sessions()
        .forRunContext(id, byTenant)
        .addItems([user('no')], new RunContext<TenantContext>()),
    ).rejects.toThrow(StoreValidationError);
    expect(await store.sessions.get(id)).toBeNull();
  });

  test('made from the injected sessions only, with a tenantOf and a valid session id', () => {
    expect(() => sessions().forTenant('acme').forRunContext('x', byTenant)).toThrow(StoreConfigurationError);
    expect(() => sessions().forRunContext('x', {} as typeof byTenant)).toThrow(StoreConfigurationError);
    expect(() => sessions().forRunContext('x', undefined as unknown as typeof byTenant)).toThrow(StoreConfigurationError);
    expect(() => sessions().forRunContext('', byTenant)).toThrow(StoreValidationError);
    expect(sessions().forRunContext('x', byTenant).acceptsRunContext).toBe(true);
  });

  test("in the application's transaction: the tenant's items commit and roll back with it", async () => {
    const id = fresh('host');
    const client = store.db.client as unknown as { $transaction<T>(work: (tx: object) => Promise<T>): Promise<T> };
    await expect(
      client.$transaction(async (tx) => {
        await sessions()
          .withTransaction(tx)
          .forRunContext(id, byTenant)
          .addItems([user('rolled back')], contextOf('acme'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.sessions.get(id)).toBeNull();
    await client.$transaction(async (tx) => {
      await sessions()
        .withTransaction(tx)
        .forRunContext(id, byTenant)
        .addItems([user('committed')], contextOf('acme'));
    });
    expect(texts(await sessions().forTenant('acme').forSession(id).getItems())).toEqual(['committed']);
  });
});
