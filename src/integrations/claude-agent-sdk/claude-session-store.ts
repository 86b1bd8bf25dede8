// The Claude Agent SDK's SessionStore on the store: each { projectKey,
// sessionId, subpath } a session of the store (see KeyedTranscripts), its
// entries kept as the SDK gave them, a uuid stored once, a subpath a subsession
// of its main transcript, so that deleting the main one deletes them all.
import { Inject, Injectable } from '@nestjs/common';
import {
  IntegrationStore,
  StoreConfigurationError,
  StoreValidationError,
  checkJsonText,
  dataCopyOf,
  keyTextOf,
  PACKAGE_BINDINGS,
} from '../../contract/index.js';
import { KeyedTranscripts, type Entry, type TranscriptKey } from './keyed-transcripts.js';

/** The prefix of its sessions' ids and of its entries' kind. */
export const CLAUDE_AGENT_SDK_KIND = 'claude-agent-sdk';
/** Its kind and session ids, its own: the stores and the HTTP API refuse them, and a JSONL import takes its entries back as it wrote them. */
export const CLAUDE_AGENT_SDK_BINDING = PACKAGE_BINDINGS.claudeAgentSdk;

/** The SDK's SessionKey (`@anthropic-ai/claude-agent-sdk`), structurally: the store needs nothing else of the SDK. */
export interface ClaudeSessionKey {
  /** The project the session is in: a non-empty string of any length, without NUL characters or lone UTF-16 surrogates. */
  projectKey: string;
  /** The SDK's session id, a text as `projectKey` is. */
  sessionId: string;
  /** A sub-agent's transcript under the session, a text as `projectKey` is; absent for the session's main transcript. */
  subpath?: string;
}

/** The SDK's SessionStoreEntry: one JSONL transcript line, a JSON object with a string `type`. */
export interface ClaudeSessionEntry {
  /** The line's type, as the SDK writes it. */
  type: string;
  /** The entry's id: an entry whose uuid the transcript holds is not stored again. Absent: always appended. */
  uuid?: string;
  /** When the SDK wrote the entry, as it wrote it; the store keeps it as given. */
  timestamp?: string;
  [key: string]: unknown;
}

/**
 * Give it as `query({ prompt, options: { sessionStore } })`. Implements append, load,
 * listSessions, delete and listSubkeys; not listSessionSummaries (the SDK lists with
 * listSessions and a load per session then).
 */
@Injectable()
export class ClaudeSessionStore {
  readonly #transcripts: KeyedTranscripts;

  /** `store` scoped to a tenant: that tenant's transcripts only (see forTenant). */
  constructor(@Inject(IntegrationStore) private readonly store: IntegrationStore) {
    this.#transcripts = new KeyedTranscripts(store, CLAUDE_AGENT_SDK_BINDING);
  }

  /** The same, seeing only `tenantId`'s transcripts and creating new ones in it. */
  forTenant(tenantId: string): ClaudeSessionStore {
    if (this.store.tenantId !== undefined)
      throw new StoreConfigurationError(`this store is tenant ${this.store.tenantId}'s already: call forTenant on the injected ClaudeSessionStore`);
    return new ClaudeSessionStore(this.store.forTenant(tenantId));
  }

  /** The same, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): ClaudeSessionStore {
    return new ClaudeSessionStore(this.store.withTransaction(tx));
  }

  /** Appends the entries in order, all or none; an entry whose uuid the transcript holds is not stored again. */
  async append(key: ClaudeSessionKey, entries: ClaudeSessionEntry[]): Promise<void> {
    const valid = keyOf(key);
    await this.#transcripts.append(valid, entriesOf(entries));
  }

  /** The transcript's entries in append order; null when it was never written (or was deleted). */
  async load(key: ClaudeSessionKey): Promise<ClaudeSessionEntry[] | null> {
    return this.#transcripts.load(keyOf(key));
  }

  /** The project's sessions (their main transcripts), each with when it was last written, in epoch ms. */
  async listSessions(projectKey: string): Promise<
    {
      /** The session's id, as its key gave it. */
      sessionId: string;
      /** When its transcript was last written, in epoch milliseconds. */
      mtime: number;
    }[]
  > {
    return this.#transcripts.list(textOf(projectKey, 'projectKey'));
  }

  /** Deletes a transcript; the main one with all its subpaths, atomically. Nothing when there is none. */
  async delete(key: ClaudeSessionKey): Promise<void> {
    await this.#transcripts.delete(keyOf(key));
  }

  /** The subpaths (sub-agent transcripts) of a session; never the main transcript. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return this.#transcripts.subkeys(keyOf({ projectKey: key?.projectKey, sessionId: key?.sessionId }));
  }
}

/** A non-empty key text of any length, as the key is digested. */
function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new StoreValidationError(`${name} must be a non-empty string`);
  return keyTextOf(value, name);
}

function keyOf(key: unknown): TranscriptKey {
  if (typeof key !== 'object' || key === null) throw new StoreValidationError('key must be { projectKey, sessionId, subpath? }');
  const { projectKey, sessionId, subpath } = key as ClaudeSessionKey;
  return {
    projectKey: textOf(projectKey, 'key.projectKey'),
    sessionId: textOf(sessionId, 'key.sessionId'),
    ...(subpath !== undefined && { subpath: textOf(subpath, 'key.subpath') }),
  };
}

/** A copy of the entries, each read once; anything but JSON objects with a string `type` is a StoreValidationError, and nothing is written. */
function entriesOf(entries: unknown): Entry[] {
  if (!Array.isArray(entries)) throw new StoreValidationError("entries must be an array of the SDK's transcript entries");
  return entries.map((entry: unknown, i) => {
    const candidate = dataCopyOf(entry, `entries[${i}]`) as Entry | null;
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate) || typeof candidate.type !== 'string') {
      throw new StoreValidationError(`entries[${i}] must be a transcript entry (an object with a string type)`);
    }
    // Kept as its JSON text, which must give it back equal.
    checkJsonText(candidate, `entries[${i}]`);
    return candidate;
  });
}
