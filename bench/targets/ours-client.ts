// The store on the application's own PrismaClient: StoreModule.forRoot({ prisma })
// booted as ours.ts boots the url mode, on a database that has the store's
// tables. The client is the provider's generated one, built as an app builds it:
// SerializedSqliteAdapterFactory on SQLite, Prisma's stock adapters (pools of 10,
// as the url mode's) on the servers. "transaction": every write is the app's own
// interactive transaction, which the store joins:
// prisma.$transaction(async (tx) => messages.withTransaction(tx).append(…)).
// "call": the same, its rates counting only the time of the store's calls in it.
import { SerializedSqliteAdapterFactory, type MessageStore, type SessionStore } from '../../src/index.js';
import { bootOurs } from './ours.js';
import { generatedClient, stockAdapter } from './prisma.js';
import type { Engine, Target } from './target.js';

export async function openOursClient(engine: Engine, url: string, mode: 'direct' | 'transaction' | 'call'): Promise<Target> {
  const prisma = await generatedClient(engine, engine === 'sqlite' ? new SerializedSqliteAdapterFactory(url) : stockAdapter(engine, url));
  const { target, messages, sessions } = await bootOurs({ prisma }).catch(async (error: unknown) => {
    await prisma.$disconnect();
    throw error;
  });
  // The module never disconnects a client it was given.
  const close = async () => {
    await target.close();
    await prisma.$disconnect();
  };
  if (mode === 'direct') return { ...target, close };
  // "call": the clock counts only the store's call, inside the transaction.
  let storeMs = 0;
  const inTransaction = async (write: (joined: MessageStore, joinedSessions: SessionStore) => Promise<unknown>) => {
    await prisma.$transaction(async (tx) => {
      const start = performance.now();
      await write(messages.withTransaction(tx), sessions.withTransaction(tx));
      storeMs += performance.now() - start;
    });
  };
  return {
    ...(mode === 'call' && { clock: () => storeMs }),
    append: (threadId, message) => inTransaction((joined) => joined.append(threadId, message)),
    appendFirst: (threadId, message) => inTransaction((joined) => joined.append(threadId, message)),
    appendMany: (threadId, batch) => inTransaction((joined) => joined.appendMany(threadId, batch)),
    // Each write in a transaction of the app's (as it would store rows of its own with it), the answer with the header; the history read outside any.
    ...(mode === 'transaction' && {
      async turn(threadId, turn) {
        await messages.getHistory(threadId);
        await inTransaction((joined) => joined.append(threadId, turn.user));
        for (const step of turn.steps) await inTransaction((joined) => joined.appendMany(threadId, step));
        await inTransaction(async (joined, joinedSessions) => {
          await joined.append(threadId, turn.answer);
          await joinedSessions.update(threadId, turn.header);
        });
      },
    }),
    stored: target.stored,
    close,
  };
}
