// TranscriptStore's data operations: whole transcripts and the subsession graph.
import type { JsonObject, Message, StoredMessage } from '../../message.types.js';
import type { StoredTranscript } from '../../session.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import * as messages from '../../engine/tables/message-rows.js';
import * as sessions from '../../engine/tables/session-rows.js';
import { attachChild, childrenOf, deleteSubtree, detachChildren } from '../../engine/tables/subsession-graph.js';
import { assertOwned, lockOwned, readOwned } from '../../engine/tables/tenancy.js';

export class TranscriptRecords {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's sessions exist (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  /** Replaces the log, the metadata and the subsessions of `id` in one transaction. */
  save(id: string, log: Message[], children: string[], metadata: JsonObject | null): Promise<StoredTranscript> {
    return this.db.write(async (tx) => {
      await lockOwned(tx, id, this.tenantId);
      const last = await messages.reserveSeqs(tx, id, log.length);
      await messages.deleteLog(tx, id);
      const stored = await messages.insertMessages(tx, id, last - log.length + 1, log);
      await sessions.updateHeader(tx, id, { metadata });
      await detachChildren(tx, id);
      for (const child of children) {
        await assertOwned(tx, child, this.tenantId);
        await attachChild(tx, id, child);
      }
      return { messages: stored, subsessions: children, metadata };
    }, log.length + children.length);
  }

  get(id: string): Promise<StoredTranscript | null> {
    return this.db.read(async (tx) => {
      const meta = await sessions.metaOf(tx, id, this.tenantId);
      if (!meta) return null;
      const log: StoredMessage[] = await messages.transcriptOf(tx, id);
      return { messages: log, subsessions: await childrenOf(tx, id), metadata: meta.metadata };
    });
  }

  /** Deletes one session, no cascade; false when there was none. */
  remove(id: string): Promise<boolean> {
    return this.db.erasing(
      () =>
        this.db.write(async (tx) => {
          const now = new Date();
          if (!(await messages.lockThread(tx, id, now, this.tenantId))) return false;
          await sessions.deleteSessions(tx, [id], now);
          return true;
        }),
      { erased: (removed) => removed },
    );
  }

  async attach(parent: string, child: string): Promise<void> {
    await this.db.write(async (tx) => {
      // Sessions never change tenant: a check without a lock stays true.
      for (const id of [parent, child]) await assertOwned(tx, id, this.tenantId);
      await attachChild(tx, parent, child);
    });
  }

  children(id: string): Promise<string[]> {
    return readOwned(this.db, id, this.tenantId, (tx) => childrenOf(tx, id));
  }

  /** Deletes `id` and its whole subtree; how many sessions went. */
  deleteTree(id: string): Promise<number> {
    return this.db.erasing(() => this.#deleteTree(id), { erased: (deleted) => deleted > 0 });
  }

  #deleteTree(id: string): Promise<number> {
    return this.db.write(async (tx) => {
      const now = new Date();
      // Locking the root first makes attachments below it wait for this delete.
      if (!(await messages.lockThread(tx, id, now, this.tenantId))) return 0;
      return deleteSubtree(tx, id, now);
    });
  }
}
