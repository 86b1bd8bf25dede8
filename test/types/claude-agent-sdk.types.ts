// Compiled by `tsc` (npm test), never run: ClaudeSessionStore is the Claude Agent SDK's
// SessionStore. The SDK's types, verbatim from @anthropic-ai/claude-agent-sdk 0.3.334 sdk.d.ts
// (lines 7427-7669), but for `declare` (this is a module of types): the SDK itself is not
// installed (its native CLI binary is 417 MB, and the store needs nothing of it at run time).
import type { IntegrationStore } from '../../src/contract/index.js';
import { ClaudeSessionStore } from '../../src/integrations/claude-agent-sdk/index.js';

/**
 * Identifies a session transcript or subagent transcript in the store.
 * Main transcripts have no subpath; subagent transcripts include a subpath
 * like 'subagents/agent-{id}' that mirrors the on-disk directory structure.
 * @alpha
 */
export type SessionKey = {
  /** Caller-defined scope. Default: sanitized cwd. Multi-tenant deployments
   *  should set this to a tenant ID or project name. Paths longer than 200
   *  characters are truncated and suffixed with a portable djb2 hash so the
   *  same path yields the same key under both Bun and Node.js. */
  projectKey: string;
  sessionId: string;
  /** Undefined = main transcript. Set for subagent files.
   *  Empty string is invalid — omit the field for the main transcript.
   *  Opaque to the adapter — just use it as a storage key suffix. */
  subpath?: string;
};

/**
 * Adapter for mirroring session transcripts to external storage.
 * The subprocess still writes to local disk (set CLAUDE_CONFIG_DIR=/tmp
 * for ephemeral local copy); the adapter receives a secondary copy.
 *
 * The SDK never deletes from your store unless you call deleteSession()
 * with delete? implemented. Retention is the adapter's responsibility —
 * implement TTL, S3 lifecycle policies, or scheduled cleanup according
 * to your compliance requirements (e.g., ZDR/HIPAA retention windows).
 * Local-disk transcripts under CLAUDE_CONFIG_DIR are swept by the
 * existing cleanupPeriodDays setting independently of this adapter.
 * @alpha
 */
export type SessionStore = {
  /**
   * Mirror a batch of transcript entries. Called AFTER the subprocess's
   * local write succeeds — durability is already guaranteed locally.
   *
   * Batches arrive at ~100ms cadence during active turns. Entries are
   * JSON-safe POJOs — one per line in the local JSONL file.
   *
   * Within a single process, persist entries in append-call order; across
   * concurrent processes, order is by storage commit time, not call time.
   *
   * Most entries carry a stable `uuid`. Adapters SHOULD treat `uuid` as an
   * idempotency key (upsert / ignore-duplicate) so that retries and
   * `importSessionToStore()` replays do not create duplicate rows. Entries
   * without a `uuid` (e.g. titles, tags, mode markers) should be appended
   * without dedup.
   *
   * Rejection is retried (3 attempts total) with short backoff; timeouts
   * (60s) are not retried since the in-flight call may still land. After
   * the final failure the batch is dropped and a `mirror_error` system
   * message is emitted. The subprocess continues unaffected.
   */
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  /**
   * Load a full session for resume. Called once, in the SDK parent, before
   * subprocess spawn. The result is materialized to a temporary JSONL file;
   * the subprocess resumes from that file using its existing resume code.
   *
   * Return `null` for a key that was never written; adapters that cannot
   * distinguish "never written" from "emptied" (e.g. Redis LRANGE) may
   * return `null` for both. Returned entries must be deep-equal to what was
   * appended — byte-equal serialization is NOT required (e.g. Postgres
   * JSONB may reorder object keys); the SDK never hashes or byte-compares
   * entries.
   */
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  /**
   * List sessions for a projectKey. Returns IDs + modification times.
   * `mtime` is integer Unix epoch milliseconds (floor fractional sources);
   * adapters without native modification
   * time (e.g. Redis) must maintain their own index. Result order is
   * unspecified — the SDK sorts by mtime descending.
   * Optional — if undefined, listSessions() with a sessionStore throws.
   */
  listSessions?(projectKey: string): Promise<
    Array<{
      sessionId: string;
      mtime: number;
    }>
  >;
  /**
   * Return incrementally-maintained summaries for all sessions in one call.
   *
   * Stores should maintain these via {@link foldSessionSummary} inside
   * `append()`. When implemented, `listSessions({ sessionStore })` reads
   * all summary metadata in a single round-trip; when undefined, it falls
   * back to `listSessions()` + per-session `load()`.
   *
   * @remarks
   * Stores that maintain summaries inside `append()` MUST serialize sidecar
   * writes if `append()` calls can race for the same session — e.g., wrap the
   * read-fold-write in a transaction/CAS or hold a per-session lock.
   * `foldSessionSummary` is pure; concurrency control is the store's responsibility.
   * @alpha
   */
  listSessionSummaries?(projectKey: string): Promise<SessionSummaryEntry[]>;
  /**
   * Delete a session. Optional — if undefined, deletion is a no-op
   * (appropriate for WORM/append-only backends like S3).
   */
  delete?(key: SessionKey): Promise<void>;
  /**
   * List all subpath keys under a session (e.g., subagent transcripts).
   * Used during resume to discover and materialize all subagent data.
   * If undefined, resume only materializes the main transcript.
   */
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
};

/**
 * One JSONL transcript line as observed by a {@link SessionStore} adapter.
 *
 * The concrete entry shape is the on-disk transcript format (a large
 * discriminated union over `type` covering user/assistant messages, summaries,
 * titles, tags, mode changes, etc.). That union is CLI-internal and not part
 * of the SDK API surface, so this is exposed as a minimal structural supertype
 * — every entry has a string `type` discriminant, most carry a `uuid` and ISO
 * `timestamp`, and the rest of the payload is opaque JSON. Adapters should
 * treat entries as pass-through blobs; round-tripping `JSON.stringify` /
 * `JSON.parse` is the only required invariant.
 * @alpha
 */
export type SessionStoreEntry = {
  type: string;
  uuid?: string;
  timestamp?: string;
  [k: string]: unknown;
};

/**
 * Incrementally-maintained session summary.
 *
 * Stores update this on {@link SessionStore.append} via
 * {@link foldSessionSummary} and return the full set from
 * {@link SessionStore.listSessionSummaries}. Adapters never re-read
 * previously appended entries.
 * @alpha
 */
export type SessionSummaryEntry = {
  sessionId: string;
  /**
   * Storage write time of the sidecar on the adapter. Must share a clock
   * source with the `mtime` returned by `listSessions()` for this session —
   * typically file mtime, S3 LastModified, Postgres `updated_at`, or whatever
   * native timestamp the adapter surfaces. Do not derive from entry ISO
   * timestamps — entry timestamps and storage write times can differ by
   * batching and network latency, and conflating them defeats the staleness
   * check.
   */
  mtime: number;
  /** Opaque SDK-owned state. Stores MUST persist verbatim and MUST NOT interpret. */
  data: Record<string, unknown>;
};

/** As `query({ prompt, options: { sessionStore } })` takes it. */
export const asTheSdkTakesIt = (store: IntegrationStore): SessionStore => new ClaudeSessionStore(store).forTenant('acme');
