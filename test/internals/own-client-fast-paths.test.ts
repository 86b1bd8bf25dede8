// A store on the application's own PrismaClient runs its fast paths on the
// adapter that client connects, for as long as Prisma holds it; inside a host
// transaction, on the driver's transaction under it; and not on an adapter they
// cannot run on.
import { Logger } from '@nestjs/common';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { openDatabase } from '../../src/engine/open-database.js';
import type { StoreDatabase } from '../../src/engine/database.js';
import { StoreDatabaseError, type Message } from '../../src/index.js';
import { PrismaMessageStore } from '../../src/stores/messages/message-store.service.js';
import { SerializedSqliteAdapterFactory } from '../../src/index.js';
import { resolveOptions } from '../../src/store.options.js';
import { eachDatabase, SQLITE } from '../support/databases.js';
import { appClient, migratedUrl, OWN_ADAPTERS, type AppClient } from '../support/openers.js';

const logger = new Logger('test');
const user = (content: string) => ({ role: 'user' as const, content });

eachDatabase((database) => {
  let prisma: AppClient;
  let db: StoreDatabase;
  beforeAll(async () => {
    prisma = await appClient(database, await migratedUrl(database));
    db = await openDatabase(resolveOptions({ prisma }), logger);
  });
  afterAll(() => prisma?.$disconnect());

  test('takes the fast paths on the client’s own adapter, which see what Prisma writes and the reverse', async () => {
    expect(await db.fastPaths()).toBeDefined();
    const messages = new PrismaMessageStore(db);
    await messages.append('fast', user('one'));
    expect(await (await db.fastPaths())!.count('fast', undefined)).toBe(1);
    expect((await prisma.agentMessage.findMany({ where: { threadId: 'fast' } })).map((m) => m.seq)).toEqual([1]);
    expect(await (await db.fastPaths())!.append('fast', [{ role: 'user', content: 'two', createdAt: new Date() }], new Date(), undefined)).toBe(2);
    expect((await messages.getTranscript('fast')).map((m) => m.content)).toEqual(['one', 'two']);
  });

  test('an error of theirs carries no statement parameters (messages), whatever the application’s pool logs', async () => {
    const noDate = { role: 'user', content: 'a secret the tool printed' } as unknown as Message;
    const failure = await (await db.fastPaths())!.append('no-date', [noDate], new Date(), undefined).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(StoreDatabaseError);
    expect(`${failure!.message} ${String((failure!.cause as Error | undefined)?.message)}`).not.toContain('secret');
  });

  test("inside the transaction host's transaction, on the driver's transaction under it: its writes commit and roll back with it", async () => {
    let open: object | undefined;
    const transactionHost = {
      isTransactionActive: () => open !== undefined,
      get tx() {
        return open ?? prisma;
      },
    };
    const hosted = await openDatabase(resolveOptions({ prisma, transactionHost }), logger);
    const messages = new PrismaMessageStore(hosted);
    for (const outcome of ['rolled back', 'committed'] as const) {
      await prisma
        .$transaction(async (tx) => {
          open = tx;
          // Not the pool's paths (whose connection is not the transaction's), but the transaction's own.
          expect(await hosted.fastPaths()).toBeDefined();
          expect(await hosted.fastPaths()).not.toBe(await db.fastPaths());
          await messages.append(`hosted ${outcome}`, user('in the transaction'));
          expect(await messages.count(`hosted ${outcome}`)).toBe(1);
          // Not seen outside before the commit (on SQLite a read outside would wait for the lock the transaction holds).
          if (database.provider !== 'sqlite') expect(await prisma.agentMessage.count({ where: { threadId: `hosted ${outcome}` } })).toBe(0);
          if (outcome === 'rolled back') throw new Error('roll back');
        })
        .catch((error: Error) => expect(error.message).toBe('roll back'))
        .finally(() => (open = undefined));
    }
    expect(await hosted.fastPaths()).toBeDefined();
    expect(await (await hosted.fastPaths())!.count('hosted rolled back', undefined)).toBe(0);
    expect(await (await hosted.fastPaths())!.count('hosted committed', undefined)).toBe(1);
  });

  test('a transaction client kept after its transaction ended is refused as Prisma refuses it, and nothing is written', async () => {
    const messages = new PrismaMessageStore(db);
    let kept: object | undefined;
    await prisma.$transaction(async (tx) => {
      kept = tx;
      await messages.withTransaction(tx).append('kept client', user('in the transaction'));
    });
    await expect(messages.withTransaction(kept!).append('kept client', user('after it'))).rejects.toThrow(/Transaction already closed|committed transaction/);
    await expect(messages.withTransaction(kept!).getHistory('kept client')).rejects.toThrow(/Transaction already closed|committed transaction/);
    expect(await prisma.agentMessage.count({ where: { threadId: 'kept client' } })).toBe(1);
  });

  test("a TransactionHost whose transaction is another client's is a configuration error, and nothing is written", async () => {
    const other = await appClient(database, await migratedUrl(database));
    try {
      await other.$transaction(async (tx) => {
        const transactionHost = { isTransactionActive: () => true, tx };
        const hosted = await openDatabase(resolveOptions({ prisma, transactionHost }), logger);
        await expect(new PrismaMessageStore(hosted).append('misrouted', user('x'))).rejects.toThrow(/not one of the PrismaClient given to StoreModule/);
      });
      expect(await other.agentMessage.count()).toBe(0);
      expect(await prisma.agentMessage.count({ where: { threadId: 'misrouted' } })).toBe(0);
    } finally {
      await other.$disconnect();
    }
  });

  test('after the client disconnects, the store connects it again under its eye, on its next call, and keeps its fast paths', async () => {
    const before = await db.fastPaths();
    await prisma.$disconnect();
    const messages = new PrismaMessageStore(db);
    await messages.append('reconnected', user('after the disconnect'));
    const after = await db.fastPaths();
    expect(after).toBeDefined();
    // The new adapter's, not the disposed one's (whose pool is closed).
    expect(after).not.toBe(before);
    expect(await after!.history('reconnected', undefined)).toEqual([expect.objectContaining({ content: 'after the disconnect', seq: 1 })]);
  });

  test('the app disconnects its client while store calls run: they finish before its pool closes, and later ones connect it again', async () => {
    const url = await migratedUrl(database);
    const client = await appClient(database, url);
    try {
      const messages = new PrismaMessageStore(await openDatabase(resolveOptions({ prisma: client }), logger));
      await messages.append('warm', user('x'));
      // At every moment of the disconnect: calls begun before it, and calls begun while it runs.
      for (let round = 0; round < 12; round++) {
        const calls = Array.from({ length: 8 }, (_, i) => messages.append(`busy ${i % 4}`, user(`m${round}`)));
        for (let tick = 0; tick < round; tick++) await Promise.resolve();
        const disconnected = client.$disconnect();
        calls.push(...Array.from({ length: 4 }, (_, i) => messages.append(`busy ${i}`, user(`late ${round}`))));
        const outcomes = await Promise.race([
          Promise.allSettled([...calls, disconnected]),
          new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
        ]);
        expect(outcomes).not.toBe('hung');
        expect((outcomes as PromiseSettledResult<unknown>[]).filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      }
      expect(await client.agentMessage.count({ where: { threadId: { startsWith: 'busy' } } })).toBe(12 * 12);
    } finally {
      await client.$disconnect();
    }
  });

  test("two clients on one adapter factory: the store's fast paths stay on its own client's pool, whatever the other does", async () => {
    const url = await migratedUrl(database);
    const factory = OWN_ADAPTERS[database.provider](url);
    const mine = await appClient(database, url, { adapter: factory });
    const other = await appClient(database, url, { adapter: factory });
    try {
      const shared = await openDatabase(resolveOptions({ prisma: mine }), logger);
      const messages = new PrismaMessageStore(shared);
      const own = await shared.fastPaths();
      expect(own).toBeDefined();
      // The other client connects, and disconnects: its pool closes, the store's runs on.
      await other.$connect();
      await other.agentMessage.count();
      await other.$disconnect();
      expect(await shared.fastPaths()).toBe(own);
      await messages.append('shared factory', user('on my pool'));
      expect(await own!.count('shared factory', undefined)).toBe(1);
      // Mine disconnects while the other connects: the store takes its own client's new adapter, not the other's.
      await mine.$disconnect();
      await other.$connect();
      await messages.append('shared factory', user('after both moved'));
      const again = await shared.fastPaths();
      expect(again).toBeDefined();
      await other.$disconnect();
      expect(await shared.fastPaths()).toBe(again);
      expect(await again!.count('shared factory', undefined)).toBe(2);
    } finally {
      await mine.$disconnect();
      await other.$disconnect();
    }
  });

  test("two clients on one adapter factory: after the app reconnected its client itself while the other connects, the store's adapter is its own client's", async () => {
    const url = await migratedUrl(database);
    for (let k = 0; k < 6; k++) {
      const factory = OWN_ADAPTERS[database.provider](url);
      const mine = await appClient(database, url, { adapter: factory });
      const other = await appClient(database, url, { adapter: factory });
      try {
        const shared = await openDatabase(resolveOptions({ prisma: mine }), logger);
        expect(await shared.fastPaths()).toBeDefined();
        await mine.$disconnect();
        await mine.agentMessage.count(); // reconnected by the app, not by the store
        const connecting = other.$connect();
        for (let tick = 0; tick < k; tick++) await Promise.resolve();
        const fast = await shared.fastPaths(); // the store asks again here, while the other connects
        await connecting;
        await other.$disconnect();
        // Its client's: still there after the other's pool closed, and working.
        expect(fast).toBeDefined();
        expect(await shared.fastPaths()).toBe(fast);
        expect(await fast!.count(`no thread ${k}`, undefined)).toBe(0);
      } finally {
        await mine.$disconnect();
        await other.$disconnect();
      }
    }
  });

  test("a transaction of another client on the same factory is never taken for the store's client's", async () => {
    const url = await migratedUrl(database);
    const factory = OWN_ADAPTERS[database.provider](url);
    // Connected before the store: the store cannot reach its adapter, and goes through Prisma.
    const early = await appClient(database, url, { adapter: factory });
    await early.$connect();
    const other = await appClient(database, url, { adapter: factory });
    try {
      const messages = new PrismaMessageStore(await openDatabase(resolveOptions({ prisma: early }), logger));
      await other.$connect();
      for (let round = 0; round < 10; round++) {
        // The other client's transaction starts while the store's client's does: it must not stand for it.
        const id = `cross ${round}`;
        // The other's starts first and stays open while the store's call runs (its commit would take the call's rows with it).
        const theirs = other.$transaction(async (tx) => {
          await (tx as unknown as AppClient).agentThread.count();
          await new Promise((resolve) => setTimeout(resolve, 50));
        });
        const mine = early
          .$transaction(async (tx) => {
            await messages.withTransaction(tx).append(id, user('rolled back'));
            throw new Error('roll back');
          })
          .catch((error: Error) => expect(error.message).toBe('roll back'));
        await Promise.all([mine, theirs]);
        expect(await early.agentMessage.count({ where: { threadId: id } })).toBe(0);
      }
    } finally {
      await early.$disconnect();
      await other.$disconnect();
    }
  });

  test("in the application's transaction the driver's transaction is found by Prisma's id, without a probe; starts at the same moment fall back to one", async () => {
    const url = await migratedUrl(database);
    const logged = await appClient(database, url, { log: [{ emit: 'event', level: 'query' }] });
    const statements: string[] = [];
    (logged as unknown as { $on(event: 'query', listener: (event: { query: string }) => void): void }).$on('query', (event) => statements.push(event.query));
    const probes = () => statements.filter((sql) => sql.includes('which driver adapter')).length;
    try {
      const messages = new PrismaMessageStore(await openDatabase(resolveOptions({ prisma: logged }), logger));
      // The store asked once, at start-up, which adapter is its client's.
      expect(probes()).toBe(1);
      statements.length = 0;
      await logged.$transaction(async (tx) => {
        await messages.withTransaction(tx).append('mapped', user('one'));
        await messages.withTransaction(tx).getHistory('mapped');
      });
      expect(probes()).toBe(0);
      // SQLite starts one transaction at a time (its write lock); the others' starts overlap.
      if (database.provider !== 'sqlite') {
        const seen = new Set<string>();
        await Promise.all(
          ['a', 'b', 'c'].map((name) =>
            logged.$transaction(async (tx) => {
              await messages.withTransaction(tx).append(`overlapping ${name}`, user(name));
              seen.add(name);
            }),
          ),
        );
        expect([...seen].sort()).toEqual(['a', 'b', 'c']);
        expect(probes()).toBeGreaterThan(0);
        for (const name of ['a', 'b', 'c']) expect((await messages.getHistory(`overlapping ${name}`)).map((m) => m.content)).toEqual([name]);
      }
      expect(await messages.count('mapped')).toBe(1);
    } finally {
      await logged.$disconnect();
    }
  });
});

describe('own clients the fast paths cannot run on', () => {
  test('Prisma’s stock SQLite adapter has no connection of their own: every call goes through Prisma', async () => {
    const url = await migratedUrl(SQLITE);
    const { PrismaClient } = await import('../../src/generated/sqlite/client.js');
    const prisma = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url }) });
    try {
      const db = await openDatabase(resolveOptions({ prisma }), logger);
      expect(await db.fastPaths()).toBeUndefined();
      await new PrismaMessageStore(db).append('stock', user('kept'));
      expect(await new PrismaMessageStore(db).getHistory('stock')).toEqual([expect.objectContaining({ content: 'kept' })]);
    } finally {
      await prisma.$disconnect();
    }
  });

  test('a frozen adapter factory, or a frozen adapter, cannot be watched: the full path, and the application’s client unharmed', async () => {
    for (const freeze of ['factory', 'adapter'] as const) {
      const url = await migratedUrl(SQLITE);
      const factory = new SerializedSqliteAdapterFactory(url);
      const connect = factory.connect.bind(factory);
      const frozen = freeze === 'factory' ? Object.freeze(factory) : Object.assign(factory, { connect: async () => Object.freeze(await connect()) });
      const { PrismaClient } = await import('../../src/generated/sqlite/client.js');
      const prisma = new PrismaClient({ adapter: frozen });
      try {
        const db = await openDatabase(resolveOptions({ prisma }), logger);
        expect(await db.fastPaths()).toBeUndefined();
        await new PrismaMessageStore(db).append('frozen', user('kept'));
        expect(await prisma.agentMessage.count()).toBe(1);
        await prisma.$disconnect();
        expect(await prisma.agentMessage.count()).toBe(1);
      } finally {
        await prisma.$disconnect();
      }
    }
  });

  test('a client connected before the store started: the full path, and a warning that says why', async () => {
    const prisma = await appClient(SQLITE, await migratedUrl(SQLITE));
    const warnings: string[] = [];
    const watching = Object.assign(new Logger('test'), { warn: (message: string) => warnings.push(message) });
    try {
      await prisma.$connect();
      const db = await openDatabase(resolveOptions({ prisma }), watching);
      expect(await db.fastPaths()).toBeUndefined();
      expect(warnings).toEqual([expect.stringMatching(/connected before the store started/)]);
      await new PrismaMessageStore(db).append('early', user('kept'));
      expect(await new PrismaMessageStore(db).count('early')).toBe(1);
    } finally {
      await prisma.$disconnect();
    }
  });
});
