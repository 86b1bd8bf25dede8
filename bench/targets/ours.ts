// The store as an app uses it: StoreModule booted in a Nest application
// context on the url, migrated at boot, and the unscoped stores it provides.
import { NestFactory } from '@nestjs/core';
import { MessageStore, SessionStore, StoreModule, TranscriptStore } from '../../src/index.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

export async function openOurs(url: string): Promise<Target> {
  // abortOnError: false, so that a failed boot is an error the harness reports, not a silent exit.
  const app = await NestFactory.createApplicationContext(StoreModule.forRoot({ url, migrate: true }), { logger: false, abortOnError: false });
  const messages = app.get<MessageStore>(MessageStore);
  const transcripts = app.get<TranscriptStore>(TranscriptStore);
  const sessions = app.get<SessionStore>(SessionStore);
  return {
    async append(threadId: string, message: BenchMessage) {
      await messages.append(threadId, message);
    },
    async appendMany(threadId: string, batch: BenchMessage[]) {
      await messages.appendMany(threadId, batch);
    },
    stored: (threadId) => messages.count(threadId),
    getHistory: (threadId) => messages.getHistory(threadId),
    count: (threadId) => messages.count(threadId),
    async compact(threadId: string, summary: BenchMessage, sourceMessageCount: number) {
      await messages.appendCompaction(threadId, [summary], sourceMessageCount, 0);
    },
    async deleteTranscript(rootId: string) {
      await transcripts.deleteTranscript(rootId);
    },
    async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
      const page = await sessions.list({ limit, ...(cursor !== undefined && { cursor: cursor as string }) });
      return { sessions: page.sessions, next: page.nextCursor };
    },
    close: () => app.close(),
  };
}
