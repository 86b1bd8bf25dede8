// The TenantStores contract: the stores as one tenant sees them. Inject it by its token: `@Inject(TenantStores) tenants: TenantStores`.
import type { ChatStore } from '../chats/index.js';
import type { MessageStore } from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { TranscriptStore } from '../transcripts/index.js';

/**
 * The stores scoped to one tenant, with the same contracts and these
 * differences. A session belongs to the tenant that created it, for good.
 * - `sessions.create` and `sessions.importJsonl` create sessions in the tenant
 *   (a different `tenantId` given to `create` or `list` is a StoreValidationError;
 *   an imported header's `tenantId` is replaced), and `sessions.list` lists only
 *   the tenant's sessions. Nothing else creates one, except that an import
 *   creates its missing subsessions in the tenant.
 * - Session ids are unique across tenants: creating one with an id another
 *   tenant holds is a StoreConflictError that reveals nothing else. Let the
 *   store generate ids (UUIDs) where tenants must not learn of each other.
 * - Every other method takes only the tenant's sessions. Another tenant's
 *   session answers exactly as a missing one does: null from `sessions.get` and
 *   `transcripts.getTranscript`, false or 0 from the two deletes, and
 *   StoreNotFoundError from everything else, including the reads that return
 *   `[]` for an unknown thread unscoped and the writes that would create one.
 * The tenant is a condition of the statement that reads or locks the session,
 * inside the operation's own transaction, so no check can go stale before the
 * work it guards.
 */
export interface ScopedStores {
  /** The tenant these stores act for. */
  readonly tenantId: string;
  /** MessageStore on the tenant's sessions. */
  readonly messages: MessageStore;
  /** TranscriptStore on the tenant's sessions. */
  readonly transcripts: TranscriptStore;
  /** SessionStore on the tenant's sessions. */
  readonly sessions: SessionStore;
  /** ChatStore on the tenant's sessions: a chat must be created first, with `sessions.create({ id })`. */
  readonly chats: ChatStore;
}

/** Hands out the stores as one tenant sees them (ScopedStores). */
export interface TenantStores {
  /** The stores scoped to `tenantId` (an id: a non-empty string of at most 191 characters). */
  forTenant(tenantId: string): ScopedStores;
}

/** The injection token of TenantStores, which StoreModule provides: `@Inject(TenantStores) tenants: TenantStores`. */
export const TenantStores = Symbol('TenantStores');
