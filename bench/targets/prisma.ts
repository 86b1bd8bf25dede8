// Prisma 7 as an app would use it without the store: the store's generated
// client on Prisma's stock driver adapters, pools of 10. "create" is the plain
// path (one create per message, the sequence counted in memory); "transaction"
// is the obvious atomic path: an interactive transaction that bumps the
// thread's counter and creates the message.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import type { PrismaClient } from '../../src/generated/sqlite/client.js';
import type { BenchMessage, Engine, Target } from './target.js';

type Mode = 'create' | 'transaction';
export type Client = PrismaClient;
type Tx = Parameters<Parameters<Client['$transaction']>[0]>[0];

/** Prisma's stock driver adapter for `engine`, pools of 10 on the servers. */
export function stockAdapter(engine: Engine, url: string): SqlDriverAdapterFactory {
  switch (engine) {
    case 'sqlite':
      return new PrismaBetterSqlite3({ url, timeout: 10_000 });
    case 'postgresql':
      return new PrismaPg({ connectionString: url, max: 10 });
    case 'mysql':
      return new PrismaMariaDb({ ...mariadbConnection(url), connectionLimit: 10 });
  }
}

/** The store's generated client for `engine` (src/generated/<provider>/client.js) on `adapter`. */
export async function generatedClient(engine: Engine, adapter: SqlDriverAdapterFactory): Promise<Client> {
  // The three clients' types differ only in their provider: one is typed for all.
  const { PrismaClient } = (await (engine === 'sqlite'
    ? import('../../src/generated/sqlite/client.js')
    : engine === 'postgresql'
      ? import('../../src/generated/postgresql/client.js')
      : import('../../src/generated/mysql/client.js'))) as unknown as { PrismaClient: new (options: { adapter: SqlDriverAdapterFactory }) => Client };
  return new PrismaClient({ adapter });
}

async function connect(engine: Engine, url: string): Promise<Client> {
  const client = await generatedClient(engine, stockAdapter(engine, url));
  if (engine === 'sqlite') {
    // The stock adapter has one connection per client: these hold for every query (WAL is the file's already).
    await client.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    await client.$executeRawUnsafe('PRAGMA foreign_keys = ON');
    // It answers with its new value: a query.
    await client.$queryRawUnsafe('PRAGMA secure_delete = ON');
  }
  return client;
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
