// Prisma 7 as an app would use it without the store: the store's generated
// client on Prisma's stock driver adapters, pools of 10. "create" is the plain
// path (one create per message, the sequence counted in memory); "transaction"
// is the obvious atomic path: an interactive transaction that bumps the
// thread's counter and creates the message.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import type { PrismaClient } from '../../src/generated/sqlite/client.js';
import type { BenchMessage, Engine, Target } from './target.js';

type Mode = 'create' | 'transaction';
type Client = PrismaClient;
type Tx = Parameters<Parameters<Client['$transaction']>[0]>[0];

async function connect(engine: Engine, url: string): Promise<Client> {
  switch (engine) {
    case 'sqlite': {
      const { PrismaClient } = await import('../../src/generated/sqlite/client.js');
      const client = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url, timeout: 10_000 }) });
      // The stock adapter has one connection per client: these hold for every query (WAL is the file's already).
      await client.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
      await client.$executeRawUnsafe('PRAGMA foreign_keys = ON');
      return client;
    }
    case 'postgresql': {
      const { PrismaClient } = await import('../../src/generated/postgresql/client.js');
      return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) }) as unknown as Client;
    }
    case 'mysql': {
      const { PrismaClient } = await import('../../src/generated/mysql/client.js');
      return new PrismaClient({ adapter: new PrismaMariaDb({ ...mariadbConnection(url), connectionLimit: 10 }) }) as unknown as Client;
    }
  }
}

export async function openPrisma(engine: Engine, url: string, mode: Mode): Promise<Target> {
  const client = await connect(engine, url);
  const nextSeq = new Map<string, number>();
  const rows = (threadId: string, firstSeq: number, messages: BenchMessage[]) => {
    const createdAt = new Date();
    return messages.map((message, i) => ({ threadId, seq: firstSeq + i, role: message.role, content: message.content, createdAt }));
  };
  const inTransaction = (threadId: string, messages: BenchMessage[]) =>
    client.$transaction(async (tx: Tx) => {
      const { lastSeq } = await tx.agentThread.update({
        where: { id: threadId },
        data: { lastSeq: { increment: messages.length }, updatedAt: new Date() },
        select: { lastSeq: true },
      });
      const data = rows(threadId, lastSeq - messages.length + 1, messages);
      if (data.length === 1) await tx.agentMessage.create({ data: data[0] });
      else await tx.agentMessage.createMany({ data });
    });
  const plain = async (threadId: string, messages: BenchMessage[]) => {
    const first = nextSeq.get(threadId) ?? 1;
    nextSeq.set(threadId, first + messages.length);
    const data = rows(threadId, first, messages);
    if (data.length === 1) await client.agentMessage.create({ data: data[0] });
    else await client.agentMessage.createMany({ data });
  };
  const write = mode === 'create' ? plain : inTransaction;
  return {
    async prepareThread(threadId: string) {
      await client.agentThread.create({ data: { id: threadId } });
      nextSeq.set(threadId, 1);
    },
    append: (threadId, message) => write(threadId, [message]),
    appendMany: (threadId, messages) => write(threadId, messages),
    stored: (threadId) => client.agentMessage.count({ where: { threadId } }),
    // The plain read of a thread's rows (no boundary logic: the long thread has none).
    ...(mode === 'create' && { getHistory: (threadId: string) => client.agentMessage.findMany({ where: { threadId }, orderBy: { seq: 'asc' } }) }),
    close: () => client.$disconnect(),
  };
}
