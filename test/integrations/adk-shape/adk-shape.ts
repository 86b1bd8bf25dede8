// Google ADK's session interface (@google/adk, core/src/sessions), structurally: what a
// BaseSessionService is given and returns, with the helpers its own tests build events with.
// The package itself is not installed; the binding beside this needs only these shapes.
import { randomUUID } from 'node:crypto';

export interface EventActions {
  stateDelta: Record<string, unknown>;
  artifactDelta: Record<string, number>;
  requestedAuthConfigs: Record<string, unknown>;
  requestedToolConfirmations: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Event {
  id: string;
  invocationId: string;
  author?: string;
  actions: EventActions;
  timestamp: number;
  partial?: boolean;
  [key: string]: unknown;
}

export interface Session {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: Event[];
  lastUpdateTime: number;
}

export interface CreateSessionRequest {
  appName: string;
  userId: string;
  state?: Record<string, unknown>;
  sessionId?: string;
}

export interface CompositeSessionKey {
  appName: string;
  userId: string;
  sessionId: string;
}

export interface GetSessionRequest extends CompositeSessionKey {
  config?: { numRecentEvents?: number; afterTimestamp?: number };
}

export interface ListSessionsRequest {
  appName: string;
  userId?: string;
  limit?: number;
  offset?: number;
  page?: number;
  order?: 'asc' | 'desc';
}

export interface ListSessionsResponse {
  sessions: Session[];
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

/** ADK's BaseSessionService, as a binding implements it. */
export interface BaseSessionService {
  createSession(request: CreateSessionRequest): Promise<Session>;
  getSession(request: GetSessionRequest): Promise<Session | undefined>;
  listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse>;
  deleteSession(request: CompositeSessionKey): Promise<void>;
  appendEvent(request: { session: Session; event: Event }): Promise<Event>;
}

/** ADK's State: its key prefixes, and a lookup that, as ADK's does, asks `in`. */
export class State {
  static readonly APP_PREFIX = 'app:';
  static readonly USER_PREFIX = 'user:';
  static readonly TEMP_PREFIX = 'temp:';

  constructor(private readonly value: Record<string, unknown>) {}

  get(key: string): unknown {
    return key in this.value ? this.value[key] : undefined;
  }
}

export function createEventActions(actions: Partial<EventActions> = {}): EventActions {
  return { stateDelta: {}, artifactDelta: {}, requestedAuthConfigs: {}, requestedToolConfirmations: {}, ...actions };
}

export function createEvent(event: Partial<Event> = {}): Event {
  return { id: randomUUID(), invocationId: '', author: '', actions: createEventActions(), timestamp: Date.now(), ...event };
}
