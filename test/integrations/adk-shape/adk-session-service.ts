// A fourth framework binding, written as one outside this package would be: Google ADK's
// BaseSessionService on the store, importing nothing of the package but its integration
// contract. Each ADK session is one of the store's sessions (its id a digest of the tenant
// and the ADK key, its header keeping the key), its events that session's log, and its
// state keyed events beside them: the session's in its own log, the app's (`app:`) and the
// user's (`user:`) in a session each of their own, all changed in the event's transaction.
import { createHash, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  StoreConflictError,
  StoreValidationError,
  defineBinding,
  keyTextOf,
  type IntegrationStore,
  type LoggedSession,
  type SessionLog,
  type SessionLogReads,
} from 'nestjs-agent-store/integration';
import {
  State,
  type BaseSessionService,
  type CompositeSessionKey,
  type CreateSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from './adk-shape.js';

const EVENT = 'adk.event';
const STATE = 'adk.state';
const REPLACED = 'adk.state.replaced';

const digest = (...parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStateKey = (value: unknown) => isRecord(value) && typeof value.name === 'string' && 'value' in value;

/**
 * The binding's kinds and session ids, its own: the stores and the HTTP API refuse them, so no client
 * forges an event or a state key, and a JSONL import takes them back as the binding wrote them. ADK's
 * events and state are JSON, kept as their text: a `__proto__` key in them is data, kept as an own key.
 */
export const ADK_BINDING = defineBinding({
  name: 'adk',
  sessionIdPrefixes: ['adk:'],
  kinds: {
    [EVENT]: { jsonText: true, holds: isRecord, keyOf: (event) => `e:${digest((event as Event).id)}` },
    [STATE]: { jsonText: true, holds: isStateKey, keyOf: (state) => `s:${digest((state as { name: string }).name)}` },
    // A key set again: its earlier value, kept in the log under no key.
    [REPLACED]: { jsonText: true, holds: isStateKey },
  },
});

interface Header {
  appName: string;
  userId: string;
  sessionId: string;
  createdAt: number;
}

export class AdkSessionService implements BaseSessionService {
  readonly #logger = new Logger('AdkSessionService');

  constructor(private readonly store: IntegrationStore) {}

  /** The same service, seeing only `tenantId`'s sessions and state. */
  forTenant(tenantId: string): AdkSessionService {
    return new AdkSessionService(this.store.forTenant(tenantId));
  }

  /** The same service, every call of which runs in your transaction `tx`. */
  withTransaction(tx: object): AdkSessionService {
    return new AdkSessionService(this.store.withTransaction(tx));
  }

  /** A new session; one whose id is taken is a StoreConflictError (a deleted session's id is not used again: StoreNotFoundError). */
  async createSession({ appName, userId, state = {}, sessionId }: CreateSessionRequest): Promise<Session> {
    const key = {
      appName: nameOf(appName, 'appName'),
      userId: nameOf(userId, 'userId'),
      sessionId: sessionId === undefined ? randomUUID() : nameOf(sessionId, 'sessionId'),
    };
    const header: Header = { ...key, createdAt: Date.now() };
    const deltas = split(stateOf(state, 'state'));
    return this.store.write(async ({ sessions }) => {
      const { created } = await sessions.open(this.#idOf(key), { title: this.#appTitle(key.appName), metadata: { ...header } });
      if (!created) throw new StoreConflictError(`the ADK session ${JSON.stringify(key)} exists already`);
      await this.#putState(sessions, key, deltas);
      return {
        id: key.sessionId,
        appName: key.appName,
        userId: key.userId,
        state: await this.#state(sessions, key),
        events: [],
        lastUpdateTime: header.createdAt,
      };
    });
  }

  /** The session with its events (the newest `numRecentEvents`, those from `afterTimestamp` on) and its state; undefined when there is none. */
  getSession({ appName, userId, sessionId, config = {} }: GetSessionRequest): Promise<Session | undefined> {
    const key = { appName: nameOf(appName, 'appName'), userId: nameOf(userId, 'userId'), sessionId: nameOf(sessionId, 'sessionId') };
    return this.store.readSessions(async ({ sessions }) => {
      const header = headerOf(await sessions.session(this.#idOf(key)), key);
      if (!header) return undefined;
      const id = this.#idOf(key);
      const recent = config.numRecentEvents;
      let events = (await sessions.events(id, { kinds: [EVENT], ...(recent !== undefined && { last: recent }) })).map((logged) => logged.value as Event);
      if (config.afterTimestamp !== undefined) events = events.filter((event) => event.timestamp >= config.afterTimestamp!);
      return { ...key, id: key.sessionId, state: await this.#state(sessions, key), events, lastUpdateTime: await this.#lastUpdate(sessions, id, header) };
    });
  }

  /** The app's sessions (the user's, with `userId`), without events or state, by last update when `order` says, a page of them with `limit`. */
  listSessions({ appName, userId, limit, offset, page, order }: ListSessionsRequest): Promise<ListSessionsResponse> {
    const app = nameOf(appName, 'appName');
    const user = userId === undefined ? undefined : nameOf(userId, 'userId');
    for (const [name, value] of Object.entries({ limit, offset, page }))
      if (value !== undefined && (!Number.isSafeInteger(value) || value < (name === 'page' ? 1 : 0)))
        throw new StoreValidationError(`${name} must be an integer of at least ${name === 'page' ? 1 : 0}`);
    return this.store.readSessions(async ({ sessions }) => {
      const found: Session[] = [];
      for (const logged of await sessions.sessions({ title: this.#appTitle(app) })) {
        const header = headerOf(logged);
        if (!header || header.appName !== app || (user !== undefined && header.userId !== user)) continue;
        const lastUpdateTime = await this.#lastUpdate(sessions, logged.id, header);
        found.push({ id: header.sessionId, appName: app, userId: header.userId, state: {}, events: [], lastUpdateTime });
      }
      if (order) {
        const sign = order === 'asc' ? 1 : -1;
        found.sort((a, b) => sign * (a.lastUpdateTime - b.lastUpdateTime) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      }
      const totalItems = found.length;
      if (limit === undefined) return { sessions: found, page: 1, limit: totalItems, totalItems, totalPages: totalItems > 0 ? 1 : 0 };
      const start = page !== undefined ? (page - 1) * limit : (offset ?? 0);
      const totalPages = limit > 0 ? Math.ceil(totalItems / limit) : 0;
      return { sessions: found.slice(start, start + limit), page: page ?? (limit > 0 ? Math.floor(start / limit) + 1 : 1), limit, totalItems, totalPages };
    });
  }

  /** Deletes the session, its events and its state (not the app's or the user's); nothing when there is none. */
  async deleteSession({ appName, userId, sessionId }: CompositeSessionKey): Promise<void> {
    const key = { appName: nameOf(appName, 'appName'), userId: nameOf(userId, 'userId'), sessionId: nameOf(sessionId, 'sessionId') };
    await this.store.write(async ({ sessions }) => {
      const id = this.#idOf(key);
      if ((await sessions.lock(id)) && headerOf(await sessions.session(id), key)) await sessions.delete(id);
    });
  }

  /**
   * Stores the event and its state delta in one transaction (`temp:` keys are the invocation's only), then
   * updates `session` as ADK's base class does. A partial event is not stored; an event of a session that
   * does not exist is not either, with a warning, as ADK's own services do. An event id stored already is
   * a StoreConflictError.
   */
  async appendEvent({ session, event }: { session: Session; event: Event }): Promise<Event> {
    if (event.partial) return event;
    const delta = Object.fromEntries(Object.entries(event.actions?.stateDelta ?? {}).filter(([name]) => !name.startsWith(State.TEMP_PREFIX)));
    if (event.actions) event.actions.stateDelta = delta;
    const key = {
      appName: nameOf(session.appName, 'session.appName'),
      userId: nameOf(session.userId, 'session.userId'),
      sessionId: nameOf(session.id, 'session.id'),
    };
    const stored = await this.store.write(async ({ sessions }) => {
      const id = this.#idOf(key);
      if (!(await sessions.lock(id)) || !headerOf(await sessions.session(id), key)) return false;
      await sessions.append(id, [{ kind: EVENT, key: `e:${digest(event.id)}`, value: event }]);
      await this.#putState(sessions, key, split(delta));
      return true;
    });
    if (!stored) {
      this.#logger.warn(`session ${JSON.stringify(key)} does not exist: the event is not stored`);
      return event;
    }
    session.state = Object.fromEntries([...Object.entries(session.state), ...Object.entries(delta)]);
    const index = session.events.findIndex((each) => each.id === event.id);
    if (index >= 0) session.events[index] = event;
    else session.events.push(event);
    session.lastUpdateTime = event.timestamp;
    return event;
  }

  /** Sets each scope's keys: a key set before is replaced (its event renamed), so the state is the log's STATE events. */
  async #putState(log: SessionLog, key: Omit<Header, 'createdAt'>, deltas: Record<Scope, [string, unknown][]>): Promise<void> {
    for (const [scope, entries] of Object.entries(deltas) as [Scope, [string, unknown][]][]) {
      if (entries.length === 0) continue;
      const id = this.#scopeId(scope, key);
      // Locked before its keys are read: two events setting one key queue here, and the second renames the first's.
      if (!(await log.lock(id))) await log.open(id);
      const keys = entries.map(([name]) => `s:${digest(name)}`);
      const held = await log.events(id, { kinds: [STATE], keys });
      if (held.length > 0) await log.rekind(id, { kind: STATE, seqs: held.map((each) => each.seq) }, { kind: REPLACED, dropKey: true });
      await log.append(
        id,
        entries.map(([name, value], i) => ({ kind: STATE, key: keys[i], value: { name, value } })),
      );
    }
  }

  /** The session's state as ADK merges it: the app's keys as `app:…`, the user's as `user:…`, then the session's own. */
  async #state(log: SessionLogReads, key: Omit<Header, 'createdAt'>): Promise<Record<string, unknown>> {
    const entries: [string, unknown][] = [];
    for (const [scope, prefix] of [
      ['session', ''],
      ['app', State.APP_PREFIX],
      ['user', State.USER_PREFIX],
    ] as const) {
      for (const { value } of await log.events(this.#scopeId(scope, key), { kinds: [STATE] })) {
        const { name, value: held } = value as { name: string; value: unknown };
        entries.push([prefix + name, held]);
      }
    }
    // fromEntries defines each key as the state's own, `__proto__` too: nothing is re-parented.
    return Object.fromEntries(entries);
  }

  async #lastUpdate(log: SessionLogReads, id: string, header: Header): Promise<number> {
    const [last] = await log.events(id, { kinds: [EVENT], last: 1 });
    return last ? (last.value as Event).timestamp : header.createdAt;
  }

  #idOf(key: Omit<Header, 'createdAt'>): string {
    return `adk:${digest(this.store.tenantId ?? null, key.appName, key.userId, key.sessionId)}`;
  }

  #scopeId(scope: Scope, key: Omit<Header, 'createdAt'>): string {
    if (scope === 'session') return this.#idOf(key);
    if (scope === 'app') return `adk:app:${digest(this.store.tenantId ?? null, key.appName)}`;
    return `adk:user:${digest(this.store.tenantId ?? null, key.appName, key.userId)}`;
  }

  #appTitle(appName: string): string {
    return `adk.app:${digest(this.store.tenantId ?? null, appName)}`;
  }
}

type Scope = 'session' | 'app' | 'user';

/** A delta's keys by scope, without their prefixes; `temp:` keys are dropped. */
function split(delta: Record<string, unknown>): Record<Scope, [string, unknown][]> {
  const scopes: Record<Scope, [string, unknown][]> = { session: [], app: [], user: [] };
  for (const [name, value] of Object.entries(delta)) {
    if (name.startsWith(State.TEMP_PREFIX)) continue;
    if (name.startsWith(State.APP_PREFIX)) scopes.app.push([name.slice(State.APP_PREFIX.length), value]);
    else if (name.startsWith(State.USER_PREFIX)) scopes.user.push([name.slice(State.USER_PREFIX.length), value]);
    else scopes.session.push([name, value]);
  }
  return scopes;
}

function nameOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new StoreValidationError(`${name} must be a non-empty string`);
  return keyTextOf(value, name);
}

function stateOf(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreValidationError(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** The ADK key a session's header keeps, when it is `key`'s (any key's, without one). */
function headerOf(session: LoggedSession | undefined, key?: Omit<Header, 'createdAt'>): Header | undefined {
  const header = session?.metadata as Partial<Header> | null | undefined;
  if (typeof header?.appName !== 'string' || typeof header.userId !== 'string' || typeof header.sessionId !== 'string' || typeof header.createdAt !== 'number')
    return undefined;
  if (key && (header.appName !== key.appName || header.userId !== key.userId || header.sessionId !== key.sessionId)) return undefined;
  return header as Header;
}
