// TranscriptStore: validates its input, then runs one data operation per call.
import type { StoreDatabase } from '../../engine/database.js';
import { TranscriptRecords } from './transcript-records.js';
import type { MessageStore } from '../messages/index.js';
import type { MessageInput, StoredMessage } from '../../message.types.js';
import type { StoredTranscript, Transcript } from '../../session.types.js';
import type { TranscriptStore } from './transcript-store.js';
import { StoreValidationError } from '../../store.errors.js';
import { distinctIds, idOf, jsonObjectOf, messagesOf } from '../../values/validation.js';
import { sessionIdOf } from '../../values/bindings.js';

const TRANSCRIPT_KEYS = new Set(['messages', 'subsessions', 'metadata']);

export class PrismaTranscriptStore implements TranscriptStore {
  readonly #records: TranscriptRecords;

  constructor(
    private readonly db: StoreDatabase,
    /** The message store of the same scope: appends go through it. */
    private readonly messageStore: MessageStore,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {
    this.#records = new TranscriptRecords(db, tenantId);
  }

  withTransaction(tx: object): TranscriptStore {
    return new PrismaTranscriptStore(this.db.joining(tx), this.messageStore.withTransaction(tx), this.tenantId);
  }

  async saveTranscript(sessionId: string, transcript: Transcript): Promise<StoredTranscript> {
    const id = sessionIdOf(sessionId, 'sessionId');
    const { valid, children, metadata } = transcriptOf(transcript);
    return this.#records.save(id, valid, children, metadata);
  }

  async getTranscript(sessionId: string): Promise<StoredTranscript | null> {
    return this.#records.get(idOf(sessionId, 'sessionId'));
  }

  async removeTranscript(sessionId: string): Promise<boolean> {
    return this.#records.remove(idOf(sessionId, 'sessionId'));
  }

  appendMessage(sessionId: string, message: MessageInput): Promise<StoredMessage> {
    return this.messageStore.append(sessionId, message);
  }

  appendMessages(sessionId: string, batch: MessageInput[]): Promise<StoredMessage[]> {
    return this.messageStore.appendMany(sessionId, batch);
  }

  async addSubsession(parentId: string, childId: string): Promise<void> {
    await this.#records.attach(sessionIdOf(parentId, 'parentId'), sessionIdOf(childId, 'childId'));
  }

  async getSubsessions(sessionId: string): Promise<string[]> {
    return this.#records.children(idOf(sessionId, 'sessionId'));
  }

  async deleteTranscript(sessionId: string): Promise<number> {
    return this.#records.deleteTree(idOf(sessionId, 'sessionId'));
  }
}

function transcriptOf(transcript: Transcript) {
  if (typeof transcript !== 'object' || transcript === null || Array.isArray(transcript)) {
    throw new StoreValidationError('transcript must be an object { messages, subsessions?, metadata? }');
  }
  for (const key of Object.keys(transcript)) {
    if (!TRANSCRIPT_KEYS.has(key)) throw new StoreValidationError(`transcript has an unknown property "${key}"`);
  }
  const valid = distinctIds(messagesOf(transcript.messages, 'transcript.messages'), 'transcript.messages');
  const subsessions = transcript.subsessions ?? [];
  if (!Array.isArray(subsessions)) throw new StoreValidationError('transcript.subsessions must be an array of session ids');
  const children = [...new Set(subsessions.map((child, i) => sessionIdOf(child, `transcript.subsessions[${i}]`)))];
  const metadata = transcript.metadata === undefined ? null : jsonObjectOf(transcript.metadata, 'transcript.metadata');
  return { valid, children, metadata };
}
