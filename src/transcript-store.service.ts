// TranscriptStore over the Prisma schema.
import type { StoreDatabase } from './data/database.js';
import * as messages from './data/message.repository.js';
import * as sessions from './data/session.repository.js';
import { attachChild, childrenOf, deleteSubtree } from './data/subsession-graph.js';
import { assertOwned, lockOwned, readOwned } from './data/tenancy.js';
import type { MessageStore } from './message-store.js';
import type { MessageInput, StoredMessage } from './message.types.js';
import type { StoredTranscript, Transcript } from './session.types.js';
import type { TranscriptStore } from './transcript-store.js';
import { StoreValidationError } from './store.errors.js';
import { idOf, jsonObjectOf, messagesOf } from './validation.js';

const TRANSCRIPT_KEYS = new Set(['messages', 'subsessions', 'metadata']);

export class PrismaTranscriptStore implements TranscriptStore {
  constructor(
    private readonly db: StoreDatabase,
    /** The message store of the same scope: appends go through it. */
    private readonly messageStore: MessageStore,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  async saveTranscript(sessionId: string, transcript: Transcript): Promise<StoredTranscript> {
    const id = idOf(sessionId, 'sessionId');
    const { valid, children, metadata } = transcriptOf(transcript);
    return this.db.write(async (tx) => {
      await lockOwned(tx, id, this.tenantId);
      const last = await messages.reserveSeqs(tx, this.db.dialect, id, valid.length);
      await messages.deleteLog(tx, id);
      const stored = await messages.insertMessages(tx, id, last - valid.length + 1, valid);
      await sessions.updateHeader(tx, id, { metadata });
      await tx.agentSubsession.deleteMany({ where: { parentId: id } });
      for (const child of children) {
        await assertOwned(tx, child, this.tenantId);
        await attachChild(tx, this.db.dialect, id, child);
      }
      return { messages: stored, subsessions: children, metadata };
    });
  }

  async getTranscript(sessionId: string): Promise<StoredTranscript | null> {
    const id = idOf(sessionId, 'sessionId');
    return this.db.read(async (tx) => {
      const meta = await sessions.metaOf(tx, id, this.tenantId);
      if (!meta) return null;
      return { messages: await messages.transcriptOf(tx, id), subsessions: await childrenOf(tx, id), metadata: meta.metadata };
    });
  }

  async removeTranscript(sessionId: string): Promise<boolean> {
    const id = idOf(sessionId, 'sessionId');
    return this.db.write(async (tx) => {
      const now = new Date();
      if (!(await messages.lockThread(tx, id, now, this.tenantId))) return false;
      await sessions.deleteSessions(tx, [id], now);
      return true;
    });
  }

  appendMessage(sessionId: string, message: MessageInput): Promise<StoredMessage> {
    return this.messageStore.append(sessionId, message);
  }

  appendMessages(sessionId: string, batch: MessageInput[]): Promise<StoredMessage[]> {
    return this.messageStore.appendMany(sessionId, batch);
  }

  async addSubsession(parentId: string, childId: string): Promise<void> {
    const parent = idOf(parentId, 'parentId');
    const child = idOf(childId, 'childId');
    await this.db.write(async (tx) => {
      // Sessions never change tenant: a check without a lock stays true.
      for (const id of [parent, child]) await assertOwned(tx, id, this.tenantId);
      await attachChild(tx, this.db.dialect, parent, child);
    });
  }

  async getSubsessions(sessionId: string): Promise<string[]> {
    const id = idOf(sessionId, 'sessionId');
    return readOwned(this.db, id, this.tenantId, (tx) => childrenOf(tx, id));
  }

  async deleteTranscript(sessionId: string): Promise<number> {
    const id = idOf(sessionId, 'sessionId');
    return this.db.write(async (tx) => {
      const now = new Date();
      // Locking the root first makes attachments below it wait for this delete.
      if (!(await messages.lockThread(tx, id, now, this.tenantId))) return 0;
      return deleteSubtree(tx, this.db.dialect, id, now);
    });
  }
}

function transcriptOf(transcript: Transcript) {
  if (typeof transcript !== 'object' || transcript === null || Array.isArray(transcript)) {
    throw new StoreValidationError('transcript must be an object { messages, subsessions?, metadata? }');
  }
  for (const key of Object.keys(transcript)) {
    if (!TRANSCRIPT_KEYS.has(key)) throw new StoreValidationError(`transcript has an unknown property "${key}"`);
  }
  const valid = messagesOf(transcript.messages, 'transcript.messages');
  const subsessions = transcript.subsessions ?? [];
  if (!Array.isArray(subsessions)) throw new StoreValidationError('transcript.subsessions must be an array of session ids');
  const children = [...new Set(subsessions.map((child, i) => idOf(child, `transcript.subsessions[${i}]`)))];
  const metadata = transcript.metadata === undefined ? null : jsonObjectOf(transcript.metadata, 'transcript.metadata');
  return { valid, children, metadata };
}
