// Compiled by `tsc` (npm test), never run: the example of forks, pruning and purge of docs/guide/conversation-life.md, as written there.
import { Inject, Injectable } from '@nestjs/common';
import { MessageStore, SessionStore, StoreMaintenance } from '../../src/index.js';

@Injectable()
export class ConversationLife {
  constructor(
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(MessageStore) private readonly messages: MessageStore,
    @Inject(StoreMaintenance) private readonly maintenance: StoreMaintenance,
  ) {}

  async editAndRegenerate(chatId: string, text: string) {
    const fork = await this.sessions.fork(chatId, { replaceLastUserMessage: { role: 'user', content: text } });
    return this.messages.getHistory(fork.id); // run the agent on this, appending to fork.id
  }

  branches(chatId: string) {
    return this.sessions.list({ forkedFrom: chatId }); // each header's forkedFrom: { sessionId, seq }
  }

  async nightly() {
    const day = 24 * 3600 * 1000;
    await this.maintenance.pruneTranscripts({ compactedBefore: new Date(Date.now() - day) });
    await this.maintenance.purge({ updatedBefore: new Date(Date.now() - 90 * day), batchSize: 20 });
  }
}
