// OpenAIAgentsSessions: the provider an agent service injects beside
// StoreModule, handing out the SDK's Session for a session id.
import { Inject, Injectable } from '@nestjs/common';
import { IntegrationStore, PACKAGE_BINDINGS, StoreConfigurationError, idOf } from '../../contract/index.js';
import { ItemLog } from './item-log.js';
import { RunContextAgentSession, type RunContextSessionOptions } from './run-context-session.js';
import { StoreAgentSession } from './store-session.js';

/** The prefix of the entries' kinds in the session's log: `openai-agents.item` and its kin. */
export const OPENAI_AGENTS_KIND = 'openai-agents';
/** Its kinds, its own: SessionStore and the HTTP API refuse them, and a JSONL import takes them back as it wrote them. */
export const OPENAI_AGENTS_BINDING = PACKAGE_BINDINGS.openaiAgents;

/**
 * Hands out the OpenAI Agents SDK's Session on the store, for a session id. Register it as a provider beside
 * StoreModule and inject it; `forTenant` and `withTransaction` give the same, scoped or in your transaction.
 */
@Injectable()
export class OpenAIAgentsSessions {
  readonly #log: ItemLog;

  /** `store` scoped to a tenant: sessions of that tenant only (see forTenant). */
  constructor(@Inject(IntegrationStore) private readonly store: IntegrationStore) {
    this.#log = new ItemLog(store, OPENAI_AGENTS_BINDING);
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
    if (this.store.tenantId !== undefined)
      throw new StoreConfigurationError(`these sessions are tenant ${this.store.tenantId}'s already: call forRunContext on the injected OpenAIAgentsSessions`);
    const id = idOf(sessionId, 'sessionId');
    return new RunContextAgentSession(id, (tenantId) => this.forTenant(tenantId).forSession(id), options);
  }

  /** The same, seeing only `tenantId`'s sessions and creating new ones in it. */
  forTenant(tenantId: string): OpenAIAgentsSessions {
    if (this.store.tenantId !== undefined)
      throw new StoreConfigurationError(`these sessions are tenant ${this.store.tenantId}'s already: call forTenant on the injected OpenAIAgentsSessions`);
    return new OpenAIAgentsSessions(this.store.forTenant(tenantId));
  }

  /** The same, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): OpenAIAgentsSessions {
    return new OpenAIAgentsSessions(this.store.withTransaction(tx));
  }
}
