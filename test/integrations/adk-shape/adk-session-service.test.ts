// The fourth binding (adk-session-service.ts, Google ADK's BaseSessionService on the integration
// contract alone) on every opener, beside the conformance kit's slice for bindings: the integration
// contract and its sessions' log. Its suite is ADK's own tests of InMemorySessionService
// (google/adk-js, core/test/sessions/in_memory_session_service_test.ts) with every assertion, each
// test on a tenant of its own (ADK's make a new service each); the tests of isInMemoryConnectionString,
// a helper of the in-memory service alone, are not the interface's.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { StoreConflictError, StoreValidationError } from '../../../src/index.js';
import { integrationStore, runSuites, sessionLog, type Suite } from 'nestjs-agent-store/testing';
import { eachBackend } from '../../support/openers.js';
import { AdkSessionService } from './adk-session-service.js';
import { createEvent, createEventActions, State, type Session } from './adk-shape.js';

const adkSessionService: Suite = ({ store, describe, test: it, expect, beforeEach, afterEach }) => {
  let service: AdkSessionService;
  let tenant: string;

  beforeEach(() => {
    tenant = `adk-${randomUUID()}`;
    service = new AdkSessionService(store.integration).forTenant(tenant);
  });

  describe('createSession', () => {
    it('creates a new session with correct properties', async () => {
      const appName = 'test-app';
      const userId = 'test-user';
      const state = { key: 'value' };

      const session = await service.createSession({ appName, userId, state });

      expect(session).toBeDefined();
      expect(session.id).toBeDefined();
      expect(session.appName).toBe(appName);
      expect(session.userId).toBe(userId);
      expect(session.state).toEqual(state);
      expect(session.events).toEqual([]);
      expect(session.lastUpdateTime).toBeDefined();
    });

    it('creates a session with a provided sessionId', async () => {
      const sessionId = 'custom-session-id';
      const session = await service.createSession({ appName: 'app', userId: 'user', sessionId });

      expect(session.id).toBe(sessionId);
    });

    it('merges existing app and user state into new session', async () => {
      const appName = 'shared-app';
      const userId = 'shared-user';
      const session1 = await service.createSession({ appName, userId });
      const event = createEvent({
        timestamp: Date.now(),
        actions: createEventActions({ stateDelta: { [`${State.APP_PREFIX}appKey`]: 'appValue', [`${State.USER_PREFIX}userKey`]: 'userValue' } }),
      });
      await service.appendEvent({ session: session1, event });

      const session2 = await service.createSession({ appName, userId });

      expect(session2.state).toEqual({ [`${State.APP_PREFIX}appKey`]: 'appValue', [`${State.USER_PREFIX}userKey`]: 'userValue' });
    });

    it('filters out temporary state keys prefixed with temp:', async () => {
      const state = { normalKey: 'value', [`${State.TEMP_PREFIX}tempKey`]: 'tempValue' };

      const session = await service.createSession({ appName: 'test-app', userId: 'test-user', state });

      expect(session.state).toHaveProperty('normalKey', 'value');
      expect(session.state).not.toHaveProperty(`${State.TEMP_PREFIX}tempKey`);
    });
  });

  describe('getSession', () => {
    it('returns undefined if session does not exist', async () => {
      const session = await service.getSession({ appName: 'app', userId: 'user', sessionId: 'non-existent' });
      expect(session).toBeUndefined();
    });

    it('returns the session if it exists', async () => {
      const createdSession = await service.createSession({ appName: 'app', userId: 'user' });
      const session = await service.getSession({ appName: 'app', userId: 'user', sessionId: createdSession.id });

      expect(session).toBeDefined();
      expect(session?.id).toBe(createdSession.id);
    });

    it('respects numRecentEvents config', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      for (let i = 0; i < 5; i++) await service.appendEvent({ session, event: createEvent({ timestamp: i }) });

      const retrievedSession = await service.getSession({ appName: 'app', userId: 'user', sessionId: session.id, config: { numRecentEvents: 2 } });

      expect(retrievedSession?.events).toHaveLength(2);
      expect(retrievedSession?.events[0].timestamp).toBe(3);
      expect(retrievedSession?.events[1].timestamp).toBe(4);
    });

    it('respects afterTimestamp config', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      for (let i = 0; i < 5; i++) await service.appendEvent({ session, event: createEvent({ timestamp: i * 1000 }) });

      const retrievedSession = await service.getSession({ appName: 'app', userId: 'user', sessionId: session.id, config: { afterTimestamp: 2500 } });

      expect(retrievedSession?.events).toHaveLength(2);
      expect(retrievedSession?.events[0].timestamp).toBe(3000);
      expect(retrievedSession?.events[1].timestamp).toBe(4000);
    });

    it('merges current state into retrieved session', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      const event = createEvent({ timestamp: Date.now(), actions: createEventActions({ stateDelta: { [`${State.APP_PREFIX}key`]: 'newValue' } }) });
      await service.appendEvent({ session, event });

      const retrievedSession = await service.getSession({ appName: 'app', userId: 'user', sessionId: session.id });

      expect(retrievedSession?.state).toEqual({ [`${State.APP_PREFIX}key`]: 'newValue' });
    });
  });

  describe('listSessions', () => {
    /** Sessions s1, s2, … of app/user, each with one event at the given timestamp. */
    async function sessionsAt(...timestamps: number[]) {
      const created = [];
      for (let i = 0; i < timestamps.length; i++) created.push(await service.createSession({ appName: 'app', userId: 'user', sessionId: `s${i + 1}` }));
      for (let i = 0; i < timestamps.length; i++) await service.appendEvent({ session: created[i], event: createEvent({ timestamp: timestamps[i] }) });
    }

    it('returns empty list if no sessions exist', async () => {
      const response = await service.listSessions({ appName: 'app', userId: 'user' });
      expect(response.sessions).toEqual([]);
      expect(response.page).toBe(1);
      expect(response.limit).toBe(0);
      expect(response.totalItems).toBe(0);
      expect(response.totalPages).toBe(0);
    });

    it('returns list of sessions without events', async () => {
      await service.createSession({ appName: 'app', userId: 'user' });
      await service.createSession({ appName: 'app', userId: 'user' });

      const response = await service.listSessions({ appName: 'app', userId: 'user' });

      expect(response.sessions).toHaveLength(2);
      expect(response.sessions[0].events).toEqual([]);
      expect(response.sessions[1].events).toEqual([]);
    });

    it('limit on empty result → returns pagination metadata with zeros', async () => {
      const response = await service.listSessions({ appName: 'app', userId: 'user', limit: 10 });
      expect(response.sessions).toEqual([]);
      expect(response.totalItems).toBe(0);
      expect(response.totalPages).toBe(0);
      expect(response.page).toBe(1);
      expect(response.limit).toBe(10);
    });

    it('no pagination params → returns all sessions with page=1', async () => {
      await service.createSession({ appName: 'app', userId: 'user' });
      await service.createSession({ appName: 'app', userId: 'user' });

      const response = await service.listSessions({ appName: 'app', userId: 'user' });

      expect(response.page).toBe(1);
      expect(response.limit).toBe(2);
      expect(response.totalItems).toBe(2);
      expect(response.totalPages).toBe(1);
    });

    it('order asc returns oldest-first', async () => {
      await sessionsAt(3000, 1000, 2000);
      const response = await service.listSessions({ appName: 'app', userId: 'user', order: 'asc' });
      expect(response.sessions.map((s) => s.id)).toEqual(['s2', 's3', 's1']);
    });

    it('order desc returns newest-first', async () => {
      await sessionsAt(3000, 1000, 2000);
      const response = await service.listSessions({ appName: 'app', userId: 'user', order: 'desc' });
      expect(response.sessions.map((s) => s.id)).toEqual(['s1', 's3', 's2']);
    });

    it('tie-breaking by id when lastUpdateTime values are equal', async () => {
      await sessionsAt(1000, 1000);

      const asc = await service.listSessions({ appName: 'app', userId: 'user', order: 'asc' });
      expect(asc.sessions.map((s) => s.id)).toEqual(['s1', 's2']);

      const desc = await service.listSessions({ appName: 'app', userId: 'user', order: 'desc' });
      expect(desc.sessions.map((s) => s.id)).toEqual(['s1', 's2']);
    });

    it('limit returns only N sessions', async () => {
      for (let i = 1; i <= 5; i++) await service.createSession({ appName: 'app', userId: 'user', sessionId: `s${i}` });

      const response = await service.listSessions({ appName: 'app', userId: 'user', limit: 3, order: 'asc' });

      expect(response.sessions).toHaveLength(3);
      expect(response.totalItems).toBe(5);
      expect(response.totalPages).toBe(2);
    });

    it('offset skips N sessions', async () => {
      await sessionsAt(1000, 2000, 3000);
      const response = await service.listSessions({ appName: 'app', userId: 'user', limit: 2, offset: 1, order: 'asc' });
      expect(response.sessions.map((s) => s.id)).toEqual(['s2', 's3']);
    });

    it('page + limit returns correct slice', async () => {
      await sessionsAt(1000, 2000, 3000, 4000, 5000);

      const response = await service.listSessions({ appName: 'app', userId: 'user', page: 2, limit: 2, order: 'asc' });

      expect(response.sessions.map((s) => s.id)).toEqual(['s3', 's4']);
      expect(response.page).toBe(2);
      expect(response.limit).toBe(2);
      expect(response.totalItems).toBe(5);
      expect(response.totalPages).toBe(3);
    });

    it('offset beyond total → empty sessions with correct metadata', async () => {
      await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1' });

      const response = await service.listSessions({ appName: 'app', userId: 'user', limit: 2, offset: 10 });

      expect(response.sessions).toEqual([]);
      expect(response.totalItems).toBe(1);
      expect(response.totalPages).toBe(1);
    });

    it('limit=0 returns empty sessions and totalPages=0', async () => {
      await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1' });

      const response = await service.listSessions({ appName: 'app', userId: 'user', limit: 0 });

      expect(response.sessions).toEqual([]);
      expect(response.totalItems).toBe(1);
      expect(response.totalPages).toBe(0);
    });

    it('order without limit returns all sessions sorted with page=1', async () => {
      await sessionsAt(2000, 1000);

      const response = await service.listSessions({ appName: 'app', userId: 'user', order: 'desc' });

      expect(response.sessions.map((s) => s.id)).toEqual(['s1', 's2']);
      expect(response.page).toBe(1);
      expect(response.limit).toBe(2);
      expect(response.totalItems).toBe(2);
      expect(response.totalPages).toBe(1);
    });

    it('page takes precedence over offset when both are provided', async () => {
      await sessionsAt(1000, 2000, 3000, 4000, 5000);

      // page=2, limit=2 → sessions 3,4; offset=0 should be ignored
      const response = await service.listSessions({ appName: 'app', userId: 'user', page: 2, limit: 2, offset: 0, order: 'asc' });

      expect(response.sessions.map((s) => s.id)).toEqual(['s3', 's4']);
      expect(response.page).toBe(2);
    });
  });

  describe('deleteSession', () => {
    it('deletes an existing session', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      await service.deleteSession({ appName: 'app', userId: 'user', sessionId: session.id });

      const retrievedSession = await service.getSession({ appName: 'app', userId: 'user', sessionId: session.id });
      expect(retrievedSession).toBeUndefined();
    });

    it('does nothing if session does not exist', async () => {
      await expect(service.deleteSession({ appName: 'app', userId: 'user', sessionId: 'non-existent' })).resolves.not.toThrow();
    });
  });

  describe('appendEvent', () => {
    it('appends event to session and updates lastUpdateTime', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      const timestamp = Date.now() + 1000;
      const event = createEvent({ timestamp });

      await service.appendEvent({ session, event });

      const retrievedSession = await service.getSession({ appName: 'app', userId: 'user', sessionId: session.id });
      expect(retrievedSession?.events).toHaveLength(1);
      expect(retrievedSession?.events[0]).toEqual(event);
      expect(retrievedSession?.lastUpdateTime).toBe(timestamp);
    });

    it('updates app state', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      const event = createEvent({ timestamp: Date.now(), actions: createEventActions({ stateDelta: { [`${State.APP_PREFIX}key`]: 'value' } }) });

      await service.appendEvent({ session, event });

      const session2 = await service.createSession({ appName: 'app', userId: 'user' });
      expect(session2.state).toHaveProperty(`${State.APP_PREFIX}key`, 'value');
    });

    it('updates user state', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user' });
      const event = createEvent({ timestamp: Date.now(), actions: createEventActions({ stateDelta: { [`${State.USER_PREFIX}key`]: 'value' } }) });

      await service.appendEvent({ session, event });

      const session2 = await service.createSession({ appName: 'app', userId: 'user' });
      expect(session2.state).toHaveProperty(`${State.USER_PREFIX}key`, 'value');
    });

    it('handles non-existent app/user/session gracefully', async () => {
      const session: Session = { id: 'fake-session', appName: 'fake-app', userId: 'fake-user', state: {}, events: [], lastUpdateTime: 0 };
      const event = createEvent({ timestamp: Date.now() });

      const returnedEvent = await service.appendEvent({ session, event });
      expect(returnedEvent).toBe(event);
    });
  });

  describe('prototype pollution', () => {
    const POLLUTED_KEYS = ['polluted', 'httpOptions', 'pwned', 'baseUrl', 'poc_sid', 'isAdmin', 'u1', 's1'];
    const clearPollution = () => {
      for (const key of POLLUTED_KEYS) delete (Object.prototype as Record<string, unknown>)[key];
    };
    beforeEach(clearPollution);
    afterEach(clearPollution);
    const parseBody = (json: string): Record<string, unknown> => JSON.parse(json) as Record<string, unknown>;

    it('does not pollute Object.prototype via appName', async () => {
      await service.createSession({ appName: '__proto__', userId: 'polluted', sessionId: 'poc_sid', state: {} });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('does not pollute Object.prototype via userId in user state', async () => {
      const session = await service.createSession({ appName: 'app1', userId: '__proto__', sessionId: 's1', state: {} });
      await service.appendEvent({
        session,
        event: createEvent({
          timestamp: Date.now(),
          actions: createEventActions({ stateDelta: { [`${State.USER_PREFIX}httpOptions`]: { baseUrl: 'https://evil.test' } } }),
        }),
      });
      expect(({} as Record<string, unknown>)['httpOptions']).toBeUndefined();
    });

    it('does not pollute Object.prototype via appName in app state', async () => {
      const session = await service.createSession({ appName: '__proto__', userId: 'u1', sessionId: 's1', state: {} });
      await service.appendEvent({
        session,
        event: createEvent({ timestamp: Date.now(), actions: createEventActions({ stateDelta: { [`${State.APP_PREFIX}pwned`]: 'attacker-value' } }) }),
      });
      expect(({} as Record<string, unknown>)['pwned']).toBeUndefined();
    });

    it('keeps a __proto__ user state key as an own property', async () => {
      const session = await service.createSession({ appName: 'app1', userId: 'u1', sessionId: 's1', state: {} });
      await service.appendEvent({
        session,
        event: createEvent({
          timestamp: Date.now(),
          actions: createEventActions({ stateDelta: { [`${State.USER_PREFIX}__proto__`]: { baseUrl: 'https://evil.test' } } }),
        }),
      });
      const sibling = await service.createSession({ appName: 'app1', userId: 'u1', sessionId: 's2' });
      expect(sibling.state[`${State.USER_PREFIX}__proto__`]).toEqual({ baseUrl: 'https://evil.test' });
    });

    it('does not re-parent session state via __proto__ in the initial state', async () => {
      const session = await service.createSession({ appName: 'app1', userId: 'u1', sessionId: 's1', state: parseBody('{"__proto__": {"isAdmin": true}}') });
      expect(new State(session.state).get('isAdmin')).toBeUndefined();
      expect(session.state['__proto__']).toEqual({ isAdmin: true });
    });

    it('does not re-parent session state via __proto__ in a state delta', async () => {
      const session = await service.createSession({ appName: 'app1', userId: 'u1', sessionId: 's1' });
      await service.appendEvent({
        session,
        event: createEvent({ timestamp: Date.now(), actions: createEventActions({ stateDelta: parseBody('{"__proto__": {"isAdmin": true}}') }) }),
      });
      const stored = await service.getSession({ appName: 'app1', userId: 'u1', sessionId: 's1' });
      expect(new State(stored!.state).get('isAdmin')).toBeUndefined();
      expect(stored?.state['__proto__']).toEqual({ isAdmin: true });
    });

    it('does not leak sessions across apps as phantom entries', async () => {
      await service.createSession({ appName: '__proto__', userId: 'polluted', sessionId: 'poc_sid', state: {} });
      const phantom = await service.listSessions({ appName: 'polluted', userId: 'polluted' });
      expect(phantom.sessions).toHaveLength(0);

      await service.createSession({ appName: 'real_app', userId: 'alice', sessionId: 's1' });
      const phantomUser = await service.listSessions({ appName: 'real_app', userId: 'polluted' });
      expect(phantomUser.sessions).toHaveLength(0);
    });

    it('still stores and retrieves an app literally named __proto__', async () => {
      await service.createSession({ appName: '__proto__', userId: 'polluted', sessionId: 'poc_sid', state: {} });
      const session = await service.getSession({ appName: '__proto__', userId: 'polluted', sessionId: 'poc_sid' });
      expect(session?.id).toBe('poc_sid');
    });
  });

  describe("the store's own rules", () => {
    it('an event the store cannot keep is refused, and neither it nor its delta is stored', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1' });
      const event = createEvent({ timestamp: 1, actions: createEventActions({ stateDelta: { [`${State.USER_PREFIX}k`]: 1, bad: () => 1 } }) });
      await expect(service.appendEvent({ session, event })).rejects.toThrow(StoreValidationError);
      const stored = await service.getSession({ appName: 'app', userId: 'user', sessionId: 's1' });
      expect(stored).toMatchObject({ events: [], state: {} });
    });

    it('a taken session id is a StoreConflictError; another tenant sees none of it', async () => {
      await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1', state: { [`${State.APP_PREFIX}k`]: 'mine' } });
      await expect(service.createSession({ appName: 'app', userId: 'user', sessionId: 's1' })).rejects.toThrow(StoreConflictError);
      const other = new AdkSessionService(store.integration).forTenant(`adk-${randomUUID()}`);
      expect(await other.getSession({ appName: 'app', userId: 'user', sessionId: 's1' })).toBeUndefined();
      expect((await other.listSessions({ appName: 'app' })).sessions).toEqual([]);
      expect((await other.createSession({ appName: 'app', userId: 'user', sessionId: 's1' })).state).toEqual({});
    });

    it("its events and state are its own: the tenant's stores cannot forge them, nor make a session under its prefix", async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1', state: { [`${State.APP_PREFIX}role`]: 'reader' } });
      const stores = store.tenants.forTenant(tenant);
      const ids = (await stores.sessions.list()).sessions.map((each) => each.id);
      expect(ids.length).toBe(2);
      const plain = await stores.sessions.create();
      for (const type of ['adk.state', 'adk.event', 'adk.state.replaced']) {
        for (const id of ids) await expect(stores.sessions.append(id, { type, data: { name: 'role', value: 'admin' } })).rejects.toThrow(/adk binding keeps/);
        await expect(stores.sessions.append(plain, { type, data: { name: 'role', value: 'admin' } })).rejects.toThrow(/adk binding's/);
      }
      for (const id of ids) await expect(stores.messages.append(id, { role: 'user', content: 'forged' })).rejects.toThrow(/adk binding keeps/);
      await expect(stores.sessions.create({ id: `adk:app:${randomUUID()}` })).rejects.toThrow(/keeps for its own sessions/);
      const stored = await service.getSession({ appName: 'app', userId: 'user', sessionId: 's1' });
      expect(stored?.state).toEqual(session.state);
    });

    it('a JSONL export of its session imports back with its events as it wrote them', async () => {
      const session = await service.createSession({ appName: 'app', userId: 'user', sessionId: 's1' });
      const event = createEvent({
        timestamp: 5,
        actions: createEventActions({ stateDelta: JSON.parse('{"__proto__": {"isAdmin": true}, "lone": "\\ud800"}') as Record<string, unknown> }),
      });
      await service.appendEvent({ session, event });
      const stores = store.tenants.forTenant(tenant);
      const [id] = (await stores.sessions.list({ limit: 10 })).sessions
        .map((each) => each.id)
        .filter((each) => !each.startsWith('adk:app:') && !each.startsWith('adk:user:'));
      let file = '';
      for await (const line of stores.sessions.exportJsonl(id)) file += line;
      const copy = `restored-${randomUUID()}`;
      await stores.sessions.importJsonl(file, { sessionId: copy });
      const read = (from: string) =>
        store.integration.forTenant(tenant).readSessions(({ sessions }) => sessions.events(from, { kinds: ['adk.event', 'adk.state', 'adk.state.replaced'] }));
      const [original, restored] = [await read(id), await read(copy)];
      expect(restored).toEqual(original);
      expect(restored.map(({ kind }) => kind)).toEqual(['adk.event', 'adk.state', 'adk.state']);
      expect(Object.hasOwn(restored[1].value as { name: string }, 'name')).toBe(true);
    });
  });
};

test('the binding imports nothing of the package but its integration contract', () => {
  const source = readFileSync(new URL('./adk-session-service.ts', import.meta.url), 'utf8');
  const imported = ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => fileName);
  expect(imported.filter((name) => !name.startsWith('node:') && !name.startsWith('@nestjs/') && name !== './adk-shape.js')).toEqual([
    'nestjs-agent-store/integration',
  ]);
});

eachBackend((backend) => runSuites(backend, { integrationStore, sessionLog, adkSessionService }));
