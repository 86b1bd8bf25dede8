// The SDK's RunContextAwareSession (SDK 0.15 and later) on the store: one session id whose
// every call is scoped to the tenant the run's context names, through forTenant. The runner
// passes its RunContext as the last argument of each history call; a call without one (SDK 0.14,
// OpenAIResponsesCompactionSession, a direct call) is refused, never served unscoped.
import type { AgentInputItem, RunContext, SessionHistoryTransactionArgs, SessionHistoryTransactionAwareSession } from '@openai/agents-core';
import { StoreConfigurationError, StoreValidationError } from '../../contract/index.js';
import { idOf } from '../../contract/index.js';
import type { StoreAgentSession } from './store-session.js';

/** How a run-context session finds its tenant: `tenantOf(runContext.context)`, the context given to run(). */
export interface RunContextSessionOptions<TContext> {
  /**
   * Names the tenant of a run from the context given to run(): a valid id. One that throws, or
   * returns anything else, makes the call a StoreValidationError (its error the cause).
   */
  tenantOf: (context: TContext) => string;
}

/** The session of `sessionId` in `tenantId`, as OpenAIAgentsSessions.forTenant(tenantId).forSession(sessionId) gives it. */
type TenantSessionOf = (tenantId: string) => StoreAgentSession;

// The SDK's RunContextAwareSession, spelled out: its type is not in SDK 0.14, the oldest peer.
/**
 * The SDK's RunContextAwareSession (SDK 0.15 and later), from OpenAIAgentsSessions.forRunContext: each
 * history call is the session's in the tenant `tenantOf` names from the call's RunContext, as
 * `forTenant(tenantId).forSession(sessionId)` gives it. A run keeps the tenant its first call named
 * (another later is a StoreValidationError); a call without a run context is a StoreConfigurationError
 * that reads and writes nothing.
 */
export class RunContextAgentSession<TContext = unknown> implements SessionHistoryTransactionAwareSession {
  /** Tells the runner (SDK 0.15 and later) to pass its RunContext to every history call. */
  readonly acceptsRunContext = true as const;
  readonly #tenantOf: (context: TContext) => string;
  /** The tenant each run (its RunContext) named first. */
  readonly #tenants = new WeakMap<object, string>();

  /**
   * OpenAIAgentsSessions.forRunContext constructs it.
   *
   * @internal
   */
  constructor(
    private readonly sessionId: string,
    private readonly sessionIn: TenantSessionOf,
    options: RunContextSessionOptions<TContext>,
  ) {
    if (typeof options?.tenantOf !== 'function') throw new StoreConfigurationError('forRunContext needs { tenantOf: (context) => tenantId }');
    this.#tenantOf = options.tenantOf;
  }

  /** The session id; the runner asks for it without a run context, and it reads nothing. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The tenant's session's last `limit` items (all without one), oldest first (StoreAgentSession.getItems). */
  async getItems(limit?: number, runContext?: RunContext<TContext>): Promise<AgentInputItem[]> {
    return this.#scoped(runContext).getItems(limit);
  }

  /** Appends the items to the tenant's session, all or none (StoreAgentSession.addItems). */
  async addItems(items: AgentInputItem[], runContext?: RunContext<TContext>): Promise<void> {
    await this.#scoped(runContext).addItems(items);
  }

  /** Removes the tenant's session's last item and returns it; undefined when its history is empty (StoreAgentSession.popItem). */
  async popItem(runContext?: RunContext<TContext>): Promise<AgentInputItem | undefined> {
    return this.#scoped(runContext).popItem();
  }

  /** Empties the tenant's session's history; its transcript keeps it (StoreAgentSession.clearSession). */
  async clearSession(runContext?: RunContext<TContext>): Promise<void> {
    await this.#scoped(runContext).clearSession();
  }

  /** Makes a compaction's output the tenant's session's whole history (StoreAgentSession.replaceHistoryWithCompaction). */
  async replaceHistoryWithCompaction(items: AgentInputItem[], runContext?: RunContext<TContext>): Promise<void> {
    await this.#scoped(runContext).replaceHistoryWithCompaction(items);
  }

  /** Applies the transaction to the tenant's session once per operation id (StoreAgentSession.applyHistoryTransaction). */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs, runContext?: RunContext<TContext>): Promise<void> {
    await this.#scoped(runContext).applyHistoryTransaction(args);
  }

  /** The tenant's session, before anything is read or written; no tenant, no call. */
  #scoped(runContext: RunContext<TContext> | undefined): StoreAgentSession {
    // A RunContext always has its `context` (undefined when run() was given none).
    if (typeof runContext !== 'object' || runContext === null || !('context' in runContext)) {
      throw new StoreConfigurationError(
        'this session is scoped by the run context, and the call had none: the runner of @openai/agents-core 0.15 and later passes it (not 0.14, nor OpenAIResponsesCompactionSession); elsewhere use forTenant(tenantId).forSession(sessionId)',
      );
    }
    let named: unknown;
    try {
      named = this.#tenantOf(runContext.context);
    } catch (error) {
      throw new StoreValidationError('tenantOf could not name the tenant of the run context', { cause: error });
    }
    const tenantId = idOf(named, 'the tenant id tenantOf returned');
    // A run's tenant is the one its first call named: a context changed during the run (by a tool) never reaches another tenant's session.
    const pinned = this.#tenants.get(runContext);
    if (pinned !== undefined && pinned !== tenantId)
      throw new StoreValidationError("the run context's tenant changed during the run: its session stays its first tenant's");
    this.#tenants.set(runContext, tenantId);
    return this.sessionIn(tenantId);
  }
}
