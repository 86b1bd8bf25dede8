// The store as an app uses it: StoreModule booted in a Nest application
// context on the url, migrated at boot, and the unscoped stores it provides;
// forTenant gives the stores of TenantStores.forTenant(tenant) instead.
import { NestFactory } from '@nestjs/core';
import { MessageStore, SessionStore, StoreModule, TenantStores, TranscriptStore, type StoreModuleOptions } from '../../src/index.js';
import type { AgentTurn } from '../turn.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

interface Stores {
  messages: MessageStore;
  transcripts: TranscriptStore;
  sessions: SessionStore;
}

export async function openOurs(url: string): Promise<Target> {
  return (await bootOurs({ url, migrate: true })).target;
}

/** The store booted from `options` as the target, and its MessageStore (for calls the target does not make). */
export async function bootOurs(options: StoreModuleOptions): Promise<{ target: Target; messages: MessageStore; sessions: SessionStore }> {
  // abortOnError: false, so that a failed boot is an error the harness reports, not a silent exit.
  const app = await NestFactory.createApplicationContext(StoreModule.forRoot(options), { logger: false, abortOnError: false });
  const tenants = app.get<TenantStores>(TenantStores);
  const messages = app.get<MessageStore>(MessageStore);
  const sessions = app.get<SessionStore>(SessionStore);
  const unscoped = targetOf({ messages, transcripts: app.get<TranscriptStore>(TranscriptStore), sessions });
  const target: Target = {
    ...unscoped,
    forTenant(tenantId: string): Target {
      const scoped = tenants.forTenant(tenantId);
      return {
        ...targetOf(scoped),
        // Scoped, an append to a missing thread is a StoreNotFoundError: no first appends.
        appendFirst: undefined,
        // Scoped, nothing creates a session but sessions.create: the thread is a session created in the tenant.
        async prepareThread(threadId: string) {
          await scoped.sessions.create({ id: threadId });
        },
        close: async () => {},
      };
    },
    close: () => app.close(),
  };
  return { target, messages, sessions };
}

function targetOf({ messages, transcripts, sessions }: Stores): Omit<Target, 'close'> {
  return {
    async append(threadId: string, message: BenchMessage) {
      await messages.append(threadId, message);
    },
    // Unscoped, the first append creates the thread.
    async appendFirst(threadId: string, message: BenchMessage) {
      await messages.append(threadId, message);
    },
    async appendMany(threadId: string, batch: BenchMessage[]) {
      await messages.appendMany(threadId, batch);
    },
    async turn(threadId: string, turn: AgentTurn) {
      await messages.getHistory(threadId);
      await messages.append(threadId, turn.user);
      for (const step of turn.steps) await messages.appendMany(threadId, step);
      await messages.append(threadId, turn.answer);
      await sessions.update(threadId, turn.header);
    },
    stored: (threadId) => messages.count(threadId),
    getHistory: (threadId) => messages.getHistory(threadId),
    count: (threadId) => messages.count(threadId),
    async compact(threadId: string, summary: BenchMessage, sourceMessageCount: number) {
      await messages.appendCompaction(threadId, [summary], sourceMessageCount, 0);
    },
    pruneTranscript: (threadId) => messages.pruneTranscript(threadId),
    async fork(sourceId: string, forkId: string) {
      await sessions.fork(sourceId, { id: forkId });
    },
    async deleteTranscript(rootId: string) {
      await transcripts.deleteTranscript(rootId);
    },
    async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
      const page = await sessions.list({ limit, ...(cursor !== undefined && { cursor: cursor as string }) });
      return { sessions: page.sessions, next: page.nextCursor };
    },
    async exportJsonl(sessionId: string) {
      const lines: string[] = [];
      for await (const line of sessions.exportJsonl(sessionId)) lines.push(line);
      return lines;
    },
    async transcriptPage(threadId: string, limit: number, cursor?: unknown) {
      const page = await messages.getTranscriptPage(threadId, { limit, ...(cursor !== undefined && { cursor: cursor as string }) });
      return { messages: page.messages, next: page.nextCursor };
    },
  };
}
