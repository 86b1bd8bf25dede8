// OpenAIAgentsSessions: the provider an agent service injects beside
// StoreModule, handing out the SDK's Session for a session id.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { StoreDatabase } from '../../engine/database.js';
import { ADAPTER_KINDS } from '../../values/adapter-events.js';
import { ItemLog } from './item-log.js';
import { StoreConfigurationError } from '../../store.errors.js';
import { idOf } from '../../values/validation.js';
import { RunContextAgentSession, type RunContextSessionOptions } from './run-context-session.js';
import { StoreAgentSession } from './store-session.js';

/** The prefix of the entries' kinds in the session's log: `openai-agents.item` and its kin. */
export const OPENAI_AGENTS_KIND = ADAPTER_KINDS.openaiAgents;

/** Never provided: Nest injects no tenant; forTenant passes one. */
const TENANT = Symbol('OpenAIAgentsSessions tenant');

@Injectable()
export class OpenAIAgentsSessions {
  readonly #log: ItemLog;

  constructor(
    @Inject(StoreDatabase) private readonly db: StoreDatabase,
    /** Set: sessions of this tenant only (see forTenant). */
    @Optional() @Inject(TENANT) private readonly tenantId?: string,
  ) {
    this.#log = new ItemLog(db, OPENAI_AGENTS_KIND, tenantId);
  }

  /** The SDK's Session for `sessionId`, created on its first write. */
  forSession(sessionId: string): StoreAgentSession {
    return new StoreAgentSession(this.#log, idOf(sessionId, 'sessionId'));
  }

  /**
   * The SDK's RunContextAwareSession for `sessionId` (SDK 0.15 and later): each call is the
   * session's in the tenant `tenantOf` names from the context given to run(), as forTenant gives it.
   * A call without a run context is a StoreConfigurationError, and nothing is read or written.
   */
  forRunContext<TContext = unknown>(sessionId: string, options: RunContextSessionOptions<TContext>): RunContextAgentSession<TContext> {
    if (this.tenantId !== undefined)
      throw new StoreConfigurationError(`these sessions are tenant ${this.tenantId}'s already: call forRunContext on the injected OpenAIAgentsSessions`);
    const id = idOf(sessionId, 'sessionId');
    return new RunContextAgentSession(id, (tenantId) => this.forTenant(tenantId).forSession(id), options);
  }

  /** The same, seeing only `tenantId`'s sessions and creating new ones in it. */
  forTenant(tenantId: string): OpenAIAgentsSessions {
    if (this.tenantId !== undefined)
      throw new StoreConfigurationError(`these sessions are tenant ${this.tenantId}'s already: call forTenant on the injected OpenAIAgentsSessions`);
    return new OpenAIAgentsSessions(this.db, idOf(tenantId, 'tenantId'));
  }

  /** The same, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): OpenAIAgentsSessions {
    return new OpenAIAgentsSessions(this.db.joining(tx), this.tenantId);
  }
}
