// The application's transaction: a store given the transaction client of the
// application's own PrismaClient (withTransaction) runs every call in it, so
// that the store's writes and the application's commit or roll back together.
import { Test } from '@nestjs/testing';

type IsolationLevel = 'ReadCommitted' | 'RepeatableRead' | 'Serializable';
/** Prisma's transaction option (the client is typed as SQLite's, whose only level is Serializable). */
const levelOption = (level: IsolationLevel | undefined) => (level ? { isolationLevel: level as 'Serializable' } : undefined);
import {
  ChatStore,
  MessageStore,
  SessionStore,
  StoreBusyError,
  StoreConfigurationError,
  StoreDatabaseError,
  StoreModule,
  StoreNotFoundError,
  StoreValidationError,
  TenantStores,
  TranscriptStore,
} from '../../src/index.js';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import { eachDatabase, type TestDatabase } from '../support/databases.js';
import { appClient, migratedUrl, type AppClient } from '../support/openers.js';

/** The application's own table, written in the same transactions as the store. */
async function createOrders(prisma: AppClient): Promise<void> {
  await prisma.$executeRawUnsafe('CREATE TABLE app_order (id VARCHAR(64) PRIMARY KEY, status VARCHAR(32) NOT NULL)');
  await prisma.$executeRaw`INSERT INTO app_order (id, status) VALUES (${'o1'}, ${'new'})`;
}

type Queryable = Pick<AppClient, '$queryRaw' | '$executeRaw'>;

const setStatus = (tx: Queryable, status: string) => tx.$executeRaw`UPDATE app_order SET status = ${status} WHERE id = ${'o1'}`;
const statusOf = async (tx: Queryable) => (await tx.$queryRaw<{ status: string }[]>`SELECT status FROM app_order WHERE id = ${'o1'}`)[0].status;
const user = (text: string, id?: string) => ({ role: 'user' as const, content: text, ...(id && { id }) });

interface Stores {
  prisma: AppClient;
  tenants: TenantStores;
  messages: MessageStore;
  transcripts: TranscriptStore;
  sessions: SessionStore;
  chats: ChatStore;
  close(): Promise<void>;
}

async function openStores(database: TestDatabase, connectedFirst: boolean): Promise<Stores> {
  const prisma = await appClient(database, await migratedUrl(database));
  if (connectedFirst) await prisma.$connect();
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
  await app.init();
  await createOrders(prisma);
  return {
    prisma,
    messages: app.get(MessageStore),
    transcripts: app.get(TranscriptStore),
    sessions: app.get(SessionStore),
    chats: app.get(ChatStore),
    tenants: app.get(TenantStores),
    async close() {
      await app.close();
      await prisma.$disconnect();
    },
  };
}

class Rollback extends Error {}

/**
 * Each database, twice: on the fast paths, which run on the driver's transaction under the host's,
 * and through Prisma, where the store cannot reach its driver (a client connected before the store started).
 */
const PATHS = [
  ['on the fast paths', false],
  ['through Prisma', true],
] as const;

eachDatabase((database) => {
  describe.each(PATHS)('%s', (_path, connectedFirst) => {
    let stores: Stores;
    beforeAll(async () => {
      stores = await openStores(database, connectedFirst);
    });
    afterAll(() => stores?.close());
    beforeEach(() => setStatus(stores.prisma, 'new'));

    it('commits the store writes with the application writes', async () => {
      await stores.prisma.$transaction(async (tx) => {
        await setStatus(tx, 'paid');
        await stores.messages.withTransaction(tx).append('commit', user('paid'));
      });
      expect(await statusOf(stores.prisma)).toBe('paid');
      expect(await stores.messages.getHistory('commit')).toEqual([expect.objectContaining({ content: 'paid', seq: 1 })]);
    });

    it('rolls back the store writes with the application writes', async () => {
      await stores.messages.append('rollback', user('kept'));
      await expect(
        stores.prisma.$transaction(async (tx) => {
          const messages = stores.messages.withTransaction(tx);
          await setStatus(tx, 'paid');
          await messages.append('rollback', user('lost 1'));
          await messages.appendMany('rollback', [user('lost 2'), user('lost 3')]);
          await messages.appendMany('a new thread', [user('lost 4')]);
          await messages.appendCompaction('rollback', [user('summary')], 4, 0);
          await stores.sessions.withTransaction(tx).create({ id: 'child' });
          await stores.transcripts.withTransaction(tx).addSubsession('rollback', 'child');
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await statusOf(stores.prisma)).toBe('new');
      expect((await stores.messages.getHistory('rollback')).map((m) => m.content)).toEqual(['kept']);
      expect(await stores.messages.getTranscript('rollback')).toHaveLength(1);
      expect(await stores.messages.getHistory('a new thread')).toEqual([]);
      expect(await stores.sessions.get('child')).toBeNull();
      expect(await stores.transcripts.getSubsessions('rollback')).toEqual([]);
      // The thread's sequence numbers were rolled back too: the next append takes 2.
      expect((await stores.messages.append('rollback', user('next'))).seq).toBe(2);
    });

    it('forks in the application transaction: committed with it, rolled back with it, reading its own writes', async () => {
      await stores.messages.appendMany('fork-source', [user('one'), user('two')]);
      await expect(
        stores.prisma.$transaction(async (tx) => {
          await stores.messages.withTransaction(tx).append('fork-source', user('three, in the transaction'));
          const fork = await stores.sessions.withTransaction(tx).fork('fork-source', { id: 'fork-lost' });
          expect((await stores.messages.withTransaction(tx).getHistory(fork.id)).map((m) => m.content)).toEqual(['one', 'two', 'three, in the transaction']);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await stores.sessions.get('fork-lost')).toBeNull();
      await stores.prisma.$transaction(async (tx) => {
        await setStatus(tx, 'forked');
        await stores.sessions.withTransaction(tx).fork('fork-source', { id: 'fork-kept' });
      });
      expect(await statusOf(stores.prisma)).toBe('forked');
      expect((await stores.messages.getHistory('fork-kept')).map((m) => m.content)).toEqual(['one', 'two']);
    });

    it('reads the transaction its own writes, in it', async () => {
      await stores.prisma.$transaction(async (tx) => {
        const messages = stores.messages.withTransaction(tx);
        await messages.appendMany('read-own', [user('one'), user('two')]);
        expect((await messages.getHistory('read-own')).map((m) => m.content)).toEqual(['one', 'two']);
        expect(await messages.count('read-own')).toBe(2);
        expect((await messages.getHistoryPage('read-own', { limit: 1 })).messages).toHaveLength(1);
        expect(await messages.getTranscript('read-own')).toHaveLength(2);
        expect(await stores.sessions.withTransaction(tx).get('read-own')).toMatchObject({ id: 'read-own' });
      });
    });

    if (database.provider !== 'sqlite') {
      // (On SQLite, a read outside would wait for the file's lock, which the open transaction holds.)
      it('is not seen outside the transaction before it commits', async () => {
        let seenOutside: unknown[] | undefined;
        await stores.prisma.$transaction(async (tx) => {
          await stores.messages.withTransaction(tx).append('unseen', user('pending'));
          seenOutside = await stores.messages.getHistory('unseen');
        });
        expect(seenOutside).toEqual([]);
        expect(await stores.messages.getHistory('unseen')).toHaveLength(1);
      });
    }

    it('deletes a subtree with the application writes, or not at all', async () => {
      await stores.messages.append('tree', user('root'));
      await stores.transcripts.addSubsession('tree', 'tree/a');
      await expect(
        stores.prisma.$transaction(async (tx) => {
          await setStatus(tx, 'cancelled');
          expect(await stores.transcripts.withTransaction(tx).deleteTranscript('tree')).toBe(2);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await stores.transcripts.getSubsessions('tree')).toEqual(['tree/a']);
      await stores.prisma.$transaction(async (tx) => {
        await setStatus(tx, 'cancelled');
        await stores.transcripts.withTransaction(tx).deleteTranscript('tree');
      });
      expect(await statusOf(stores.prisma)).toBe('cancelled');
      await expect(stores.messages.append('tree', user('after'))).rejects.toBeInstanceOf(StoreNotFoundError);
    });

    it('leaves the transaction usable after a store call fails, with nothing of that call written', async () => {
      await stores.messages.append('deleted', user('x'));
      await stores.transcripts.deleteTranscript('deleted');
      await stores.messages.append('held', user('first', 'm1'));
      await stores.prisma.$transaction(async (tx) => {
        const messages = stores.messages.withTransaction(tx);
        await setStatus(tx, 'paid');
        // Fails in the database, after its first statement.
        await expect(messages.append('deleted', user('y'))).rejects.toBeInstanceOf(StoreNotFoundError);
        // Fails on a held id with other content.
        await expect(messages.appendMany('held', [user('second'), user('other', 'm1')])).rejects.toThrow(/other content|already holds/);
        await messages.append('held', user('third'));
      });
      expect(await statusOf(stores.prisma)).toBe('paid');
      expect((await stores.messages.getHistory('held')).map((m) => [m.content, m.seq])).toEqual([
        ['first', 1],
        ['third', 2],
      ]);
      expect(await stores.messages.getTranscript('deleted')).toEqual([]);
    });

    it.each([false, true])(
      'a call after Prisma’s timeout ended the transaction never lands in another one (the store used before it: %s)',
      async (usedBefore) => {
        const threadId = `after the timeout ${usedBefore}`;
        const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        let late: unknown;
        const timedOut = stores.prisma
          .$transaction(
            async (tx) => {
              const messages = stores.messages.withTransaction(tx);
              if (usedBefore) await messages.count(threadId);
              await sleep(700);
              late = await messages.append(threadId, user('after the timeout')).catch((error: unknown) => error);
            },
            { timeout: 300 },
          )
          .then(
            () => 'committed',
            (error: unknown) => error,
          );
        await sleep(450);
        // Another transaction of the client, the only one open when the late call comes.
        const other = stores.prisma.$transaction(() => sleep(600), { timeout: 5_000 });
        const [outcome] = await Promise.all([timedOut, other]);
        expect(outcome).toBeInstanceOf(Error);
        expect(late).toBeInstanceOf(Error);
        expect(await stores.messages.getHistory(threadId)).toEqual([]);
      },
    );

    if (database.provider !== 'sqlite') {
      it('queues calls through a transaction’s client and its nested transaction’s client as one: a failed one never undoes another', async () => {
        await stores.messages.append('nested gone', user('x'));
        await stores.transcripts.deleteTranscript('nested gone');
        let results: PromiseSettledResult<unknown>[] = [];
        await stores.prisma.$transaction(async (tx) => {
          const outer = stores.messages.withTransaction(tx);
          await outer.count('nested fresh');
          await (tx as unknown as AppClient).$transaction(async (nested) => {
            const inner = stores.messages.withTransaction(nested);
            results = await Promise.allSettled([outer.append('nested fresh', user('kept')), inner.append('nested gone', user('refused'))]);
          });
        });
        // Through Prisma, the outer call's savepoint is a nested transaction of the outer client, which Prisma refuses while
        // the inner one is open; on the fast paths it waits for the inner call.
        expect(results.map((result) => result.status)).toEqual([connectedFirst ? 'rejected' : 'fulfilled', 'rejected']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreNotFoundError);
        expect((await stores.messages.getHistory('nested fresh')).map((m) => m.content)).toEqual(connectedFirst ? [] : ['kept']);
      });
    }

    it('takes store calls made at once in one transaction, one after another', async () => {
      await stores.prisma.$transaction(async (tx) => {
        const messages = stores.messages.withTransaction(tx);
        await Promise.all([
          messages.append('at-once', user('a')),
          messages.appendMany('at-once', [user('b'), user('c')]),
          messages.append('at-once other', user('x')),
          messages.getHistory('at-once'),
          stores.sessions.withTransaction(tx).create({ id: 'at-once session' }),
          expect(messages.append('at-once third', user('y'))).resolves.toMatchObject({ seq: 1 }),
        ]);
      });
      expect((await stores.messages.getHistory('at-once')).map((m) => m.seq)).toEqual([1, 2, 3]);
      expect(await stores.messages.count('at-once other')).toBe(1);
      expect(await stores.sessions.get('at-once session')).not.toBeNull();
    });

    it('saves a chat in the transaction', async () => {
      const chat = [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text', text: 'hi' }] }];
      await expect(
        stores.prisma.$transaction(async (tx) => {
          await stores.chats.withTransaction(tx).saveChat('chat', chat);
          expect(await stores.chats.withTransaction(tx).loadChat('chat')).toEqual(chat);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await stores.chats.loadChat('chat')).toEqual([]);
    });

    it('takes only a transaction of the client the store was given', async () => {
      expect(() => stores.messages.withTransaction(stores.prisma)).toThrow(/not the PrismaClient itself/);
      expect(() => stores.messages.withTransaction({})).toThrow(StoreConfigurationError);
      expect(() => stores.sessions.withTransaction(null as unknown as object)).toThrow(StoreConfigurationError);
      // Another client of the same kind, on another database: its writes would land there.
      const other = await appClient(database, await migratedUrl(database));
      try {
        await other.$transaction(async (tx) => {
          expect(() => stores.messages.withTransaction(tx)).toThrow(/of the PrismaClient the store was given/);
        });
      } finally {
        await other.$disconnect();
      }
    });

    it("a tenant's stores take the transaction too, scoped as ever", async () => {
      await stores.sessions.create({ id: 'acme chat', tenantId: 'acme' });
      const acme = stores.tenants.forTenant('acme');
      await expect(
        stores.prisma.$transaction(async (tx) => {
          await acme.messages.withTransaction(tx).append('acme chat', user('scoped'));
          await expect(stores.tenants.forTenant('globex').messages.withTransaction(tx).append('acme chat', user('not theirs'))).rejects.toBeInstanceOf(
            StoreNotFoundError,
          );
          expect((await acme.messages.withTransaction(tx).getHistory('acme chat')).map((m) => m.content)).toEqual(['scoped']);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await acme.messages.getHistory('acme chat')).toEqual([]);
    });

    if (database.provider !== 'sqlite') {
      it('never takes a second connection of the pool: a client with a pool of one does all its work in the transaction', async () => {
        const url = await migratedUrl(database);
        const { PrismaClient } = await import(`../../src/generated/${database.provider}/client.js`);
        const adapter =
          database.provider === 'postgresql'
            ? new PrismaPg({ connectionString: url, max: 1, connectionTimeoutMillis: 2_000 })
            : new PrismaMariaDb({ ...mariadbConnection(url), connectionLimit: 1, acquireTimeout: 2_000 });
        const single = new PrismaClient({ adapter }) as AppClient;
        const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma: single })] }).compile();
        await app.init();
        try {
          const messages = app.get<MessageStore>(MessageStore);
          const transcripts = app.get<TranscriptStore>(TranscriptStore);
          await single.$transaction(async (tx) => {
            await messages.withTransaction(tx).appendMany('one-connection', [user('a'), user('b')]);
            await messages.withTransaction(tx).appendCompaction('one-connection', [user('summary')], 1, 0);
            await transcripts.withTransaction(tx).addSubsession('one-connection', 'one-connection/child');
            expect(await messages.withTransaction(tx).getHistory('one-connection')).toHaveLength(2);
          });
          expect((await messages.getHistory('one-connection')).map((m) => m.content)).toEqual(['summary', 'b']);
        } finally {
          await app.close();
          await single.$disconnect();
        }
      });

      describe('a write another connection committed after the host transaction took its snapshot', () => {
        // The host reads first (its snapshot, at REPEATABLE READ), another connection then writes the session, then the host writes it.
        const readFirst = async (threadId: string, level: IsolationLevel | undefined, write: (messages: MessageStore) => Promise<unknown>) =>
          stores.prisma.$transaction(async (tx) => {
            const messages = stores.messages.withTransaction(tx);
            await messages.getHistory(threadId);
            await stores.messages.append(threadId, user('b, from elsewhere'));
            return write(messages);
          }, levelOption(level));
        const compact = (messages: MessageStore) => messages.appendCompaction('snapshot', [user('summary of a and b')], 2, 0);
        // MariaDB's REPEATABLE READ reads the snapshot after the lock; PostgreSQL's fails the lock's write.
        const stale: IsolationLevel[] = database.provider === 'postgresql' ? ['RepeatableRead', 'Serializable'] : ['RepeatableRead'];
        const fresh: IsolationLevel[] = ['ReadCommitted'];
        const defaultLevel: IsolationLevel = database.provider === 'postgresql' ? 'ReadCommitted' : 'RepeatableRead';

        it.each([...stale, ...fresh, undefined])('at %s (undefined: the server default), a compaction counts what is there now, or refuses', async (level) => {
          const threadId = 'snapshot';
          await stores.messages.clear(threadId);
          await stores.messages.append(threadId, user('a'));
          const outcome = await readFirst(threadId, level, compact).then(
            () => 'compacted',
            (error: unknown) => error,
          );
          if (stale.includes(level ?? defaultLevel)) {
            expect(outcome).toBeInstanceOf(StoreBusyError);
            expect((await stores.messages.getHistory(threadId)).map((m) => m.content)).toEqual(['a', 'b, from elsewhere']);
          } else {
            expect(outcome).toBe('compacted');
            expect((await stores.messages.getHistory(threadId)).map((m) => m.content)).toEqual(['summary of a and b']);
          }
        });

        const whens = [...stale, ...fresh, undefined].flatMap((level) => [[level, 'existed'] as const, [level, 'created since'] as const]);
        it.each(whens)('at %s, an append to a session written since the snapshot (it %s) lands after that write, or refuses', async (level, when) => {
          const threadId = `written since ${level} ${when}`;
          if (when === 'existed') await stores.messages.append(threadId, user('a'));
          const outcome = await readFirst(threadId, level, (messages) => messages.append(threadId, user('c, from the host'))).then(
            (stored) => stored,
            (error: unknown) => error,
          );
          const before = when === 'existed' ? ['a', 'b, from elsewhere'] : ['b, from elsewhere'];
          if (stale.includes(level ?? defaultLevel)) {
            expect(outcome).toBeInstanceOf(StoreBusyError);
            expect((await stores.messages.getTranscript(threadId)).map((m) => m.content)).toEqual(before);
          } else {
            expect(outcome).toMatchObject({ seq: before.length + 1 });
            expect((await stores.messages.getTranscript(threadId)).map((m) => m.content)).toEqual([...before, 'c, from the host']);
          }
        });

        // The session existed before the host's snapshot, or was created after it too (then the snapshot cannot see its tombstone).
        const deletions = [...stale, ...fresh, undefined].flatMap((level) => [[level, 'existed'] as const, [level, 'created since'] as const]);
        it.each(deletions)('at %s, an append to a session deleted since the snapshot (it %s) does not bring it back', async (level, when) => {
          const threadId = `deleted since ${String(level)}, ${when}`;
          if (when === 'existed') await stores.messages.append(threadId, user('a'));
          const outcome = await stores.prisma
            .$transaction(async (tx) => {
              const messages = stores.messages.withTransaction(tx);
              await messages.getHistory(when === 'existed' ? threadId : 'snapshot');
              if (when === 'created since') await stores.messages.append(threadId, user('from elsewhere'));
              await stores.transcripts.deleteTranscript(threadId);
              await messages.append(threadId, user('after the delete'));
            }, levelOption(level))
            .then(
              () => 'appended',
              (error: unknown) => error,
            );
          // PostgreSQL fails the stale snapshot's write (a serialization failure: of the thread's row, or of the store's insert of a
          // tombstone the snapshot cannot see); MariaDB's locking read of the tombstone finds the delete.
          const stalePostgres = database.provider === 'postgresql' && stale.includes(level ?? defaultLevel);
          expect(outcome).toEqual(expect.any(stalePostgres ? StoreBusyError : StoreNotFoundError));
          expect(await stores.messages.getTranscript(threadId)).toEqual([]);
          await expect(stores.messages.append(threadId, user('later'))).rejects.toBeInstanceOf(StoreNotFoundError);
        });
      });

      it('a one-statement append the database fails: PostgreSQL’s fast path ends the transaction, as any failed statement there; a savepoint keeps it usable elsewhere', async () => {
        // The thread's counter at the INTEGER column's end: the next sequence number is out of range.
        await stores.messages.append('counter at its end', user('a'));
        await stores.prisma.$executeRawUnsafe(
          `UPDATE agent_thread SET last_seq = 2147483647 WHERE id = ${database.provider === 'postgresql' ? '$1' : '?'}`,
          'counter at its end',
        );
        let failure: unknown;
        let afterwards: unknown;
        const outcome = await stores.prisma
          .$transaction(async (tx) => {
            await setStatus(tx, 'paid');
            const messages = stores.messages.withTransaction(tx);
            failure = await messages.append('counter at its end', user('past the end')).catch((error: unknown) => error);
            afterwards = await messages.append('after the failure', user('b')).then(
              () => 'appended',
              (error: unknown) => error,
            );
          })
          .then(
            () => 'returned',
            (error: unknown) => error,
          );
        expect(failure).toBeInstanceOf(StoreValidationError);
        expect(await stores.messages.getTranscript('counter at its end')).toHaveLength(1);
        if (database.provider === 'postgresql' && !connectedFirst) {
          expect((failure as Error).message).toMatch(/roll your transaction back/);
          expect(afterwards).toBeInstanceOf(StoreBusyError);
          // PostgreSQL answers the COMMIT of a transaction it ended with a ROLLBACK.
          expect(await statusOf(stores.prisma)).toBe('new');
        } else {
          expect({ outcome, afterwards }).toEqual({ outcome: 'returned', afterwards: 'appended' });
          expect(await statusOf(stores.prisma)).toBe('paid');
        }
        expect(await stores.messages.getTranscript('after the failure')).toHaveLength(database.provider === 'postgresql' && !connectedFirst ? 0 : 1);
      });

      it('takes each of two transactions open at once as its own: one rolls back, the other commits', async () => {
        let bothOpen!: () => void;
        const opened = new Promise<void>((resolve) => (bothOpen = resolve));
        let count = 0;
        const run = (threadId: string, fail: boolean) =>
          stores.prisma.$transaction(async (tx) => {
            if (++count === 2) bothOpen();
            await opened;
            const messages = stores.messages.withTransaction(tx);
            await messages.append(threadId, user('one'));
            await new Promise((resolve) => setTimeout(resolve, 50));
            await messages.append(threadId, user('two'));
            if (fail) throw new Rollback();
          });
        const [kept, rolledBack] = await Promise.allSettled([run('both open, kept', false), run('both open, rolled back', true)]);
        expect(kept.status).toBe('fulfilled');
        expect(rolledBack).toEqual({ status: 'rejected', reason: expect.any(Rollback) });
        expect((await stores.messages.getHistory('both open, kept')).map((m) => m.content)).toEqual(['one', 'two']);
        expect(await stores.messages.getHistory('both open, rolled back')).toEqual([]);
      });

      it.each([1, 1_001])('keeps nothing of a call of %i messages that Prisma’s timeout ended the transaction under, and the thread goes on', async (size) => {
        const threadId = `timed out ${size}`;
        await stores.messages.append(threadId, user('a'));
        // Another transaction holds the thread's row past the host's timeout.
        const holder = stores.prisma.$transaction(async (tx) => {
          await tx.$queryRawUnsafe(
            'SELECT id FROM agent_thread WHERE id = $1 FOR UPDATE'.replace('$1', database.provider === 'postgresql' ? '$1' : '?'),
            threadId,
          );
          await new Promise((resolve) => setTimeout(resolve, 1_200));
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        const outcome = await stores.prisma
          .$transaction(
            async (tx) => {
              await setStatus(tx, 'paid');
              await stores.messages.withTransaction(tx).appendMany(
                threadId,
                Array.from({ length: size }, (_, i) => user(`m${i}`)),
              );
            },
            { timeout: 400 },
          )
          .then(
            () => 'committed',
            (error: unknown) => error,
          );
        await holder;
        // What was left of the call after the timeout runs no more: it would have committed statement by statement.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(outcome).toBeInstanceOf(Error);
        expect(await statusOf(stores.prisma)).toBe('new');
        expect((await stores.messages.getTranscript(threadId)).map((m) => [m.seq, m.content])).toEqual([[1, 'a']]);
        expect((await stores.messages.append(threadId, user('later'))).seq).toBe(2);
      });

      if (database.provider === 'mysql') {
        it('refuses its later calls in a transaction that MariaDB ended on a deadlock (its savepoint gone with it)', async () => {
          await stores.messages.append('deadlocked', user('a'));
          await stores.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS app_heavy (id INT PRIMARY KEY)');
          // The other side does more work, so that InnoDB picks the host's transaction as the deadlock's victim.
          let release!: () => void;
          const released = new Promise<void>((resolve) => (release = resolve));
          let locked!: () => void;
          const holding = new Promise<void>((resolve) => (locked = resolve));
          const other = stores.prisma.$transaction(
            async (tx) => {
              await tx.$executeRawUnsafe('INSERT INTO app_heavy SELECT seq FROM seq_1_to_2000');
              await tx.$queryRawUnsafe("SELECT id FROM agent_thread WHERE id = 'deadlocked' FOR UPDATE");
              locked();
              await released;
              await setStatus(tx, 'other');
              await tx.$executeRawUnsafe('DELETE FROM app_heavy');
            },
            { timeout: 10_000 },
          );
          await holding;
          let first: unknown;
          let afterwards: unknown;
          const host = stores.prisma.$transaction(
            async (tx) => {
              await setStatus(tx, 'paid');
              const messages = stores.messages.withTransaction(tx);
              setTimeout(release, 300);
              first = await messages.append('deadlocked', user('in the host')).catch((error: unknown) => error);
              afterwards = await messages.append('deadlocked elsewhere', user('later')).catch((error: unknown) => error);
            },
            { timeout: 10_000 },
          );
          await Promise.allSettled([host, other]);
          expect(first).toBeInstanceOf(StoreBusyError);
          expect(afterwards).toBeInstanceOf(StoreBusyError);
          expect(await stores.messages.getTranscript('deadlocked elsewhere')).toEqual([]);
          expect((await stores.messages.getTranscript('deadlocked')).map((m) => m.content)).toEqual(['a']);
          expect(await statusOf(stores.prisma)).toBe('other');
        });

        it('a deadlock on the first of several INSERTs of an append commits none of the others', async () => {
          const threadId = 'deadlock mid-insert';
          await stores.messages.append(threadId, user('a'));
          await stores.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS app_heavy2 (id INT PRIMARY KEY)');
          let release!: () => void;
          const released = new Promise<void>((resolve) => (release = resolve));
          let locked!: () => void;
          const holding = new Promise<void>((resolve) => (locked = resolve));
          const other = stores.prisma.$transaction(
            async (tx) => {
              await tx.$executeRawUnsafe('INSERT INTO app_heavy2 SELECT seq FROM seq_1_to_2000');
              // The gap after the thread's last message: the host's first INSERT waits for it.
              await tx.$queryRawUnsafe('SELECT seq FROM agent_message WHERE thread_id = ? FOR UPDATE', threadId);
              locked();
              await released;
              // The thread's row, which the host's append holds: a deadlock, the lighter host its victim.
              await tx.$queryRawUnsafe('SELECT id FROM agent_thread WHERE id = ? FOR UPDATE', threadId);
              await tx.$executeRawUnsafe('DELETE FROM app_heavy2');
            },
            { timeout: 10_000 },
          );
          await holding;
          let failure: unknown;
          const host = stores.prisma.$transaction(
            async (tx) => {
              setTimeout(release, 300);
              const batch = Array.from({ length: 1_001 }, (_, i) => user(`m${i}`));
              failure = await stores.messages
                .withTransaction(tx)
                .appendMany(threadId, batch)
                .catch((error: unknown) => error);
              throw new Rollback();
            },
            { timeout: 10_000 },
          );
          await Promise.allSettled([host, other]);
          expect(failure).toBeInstanceOf(StoreBusyError);
          // The host rolled back: nothing of its append may be left.
          expect((await stores.messages.getTranscript(threadId)).map((m) => m.seq)).toEqual([1]);
          // The thread goes on: its counter says 1, so a later append must not meet a seq already held.
          expect(
            (
              await stores.messages.appendMany(
                threadId,
                Array.from({ length: 1_001 }, (_, i) => user(`later ${i}`)),
              )
            ).at(-1)?.seq,
          ).toBe(1_002);
        });

        it('an append whose INSERT MariaDB refuses (a trigger) writes nothing and leaves the transaction usable: to a session that existed or one it created, in one INSERT or several', async () => {
          await stores.prisma.$executeRawUnsafe(
            "CREATE TRIGGER IF NOT EXISTS refuse_boom BEFORE INSERT ON agent_message FOR EACH ROW BEGIN IF NEW.content LIKE '%boom%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END",
          );
          try {
            await stores.messages.append('refused', user('a'));
            const long = [...Array.from({ length: 1_000 }, (_, i) => user(`n${i}`)), user('boom')];
            const failures: unknown[] = [];
            await stores.prisma.$transaction(
              async (tx) => {
                await setStatus(tx, 'paid');
                const messages = stores.messages.withTransaction(tx);
                failures.push(await messages.appendMany('refused', [user('b'), user('boom')]).catch((error: unknown) => error));
                failures.push(await messages.appendMany('refused', long).catch((error: unknown) => error));
                failures.push(await messages.append('refused, new', user('boom')).catch((error: unknown) => error));
                failures.push(await messages.appendMany('refused, new and long', long).catch((error: unknown) => error));
                await messages.append('refused', user('c'));
              },
              { timeout: 20_000 },
            );
            expect(failures).toHaveLength(4);
            for (const failure of failures) {
              expect(failure).toBeInstanceOf(StoreDatabaseError);
              expect(failure).not.toBeInstanceOf(StoreBusyError);
              expect((failure as Error).message).not.toMatch(/roll your transaction back/);
            }
            expect(await statusOf(stores.prisma)).toBe('paid');
            expect((await stores.messages.getTranscript('refused')).map((m) => [m.seq, m.content])).toEqual([
              [1, 'a'],
              [2, 'c'],
            ]);
            expect(await stores.sessions.get('refused, new')).toBeNull();
            expect(await stores.sessions.get('refused, new and long')).toBeNull();
          } finally {
            await stores.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS refuse_boom');
          }
        });
      }

      it('does not retry a conflict in the host transaction: StoreBusyError, for the host to run again', async () => {
        await stores.messages.append('contended', user('first'));
        const holder = stores.prisma.$transaction(async (tx) => {
          await stores.messages.withTransaction(tx).append('contended', user('holder'));
          await new Promise((resolve) => setTimeout(resolve, 3_000));
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = Date.now();
        let afterwards: unknown;
        const waiter = stores.prisma.$transaction(async (tx) => {
          // Give up on the row lock after a second, as a deadlock or a serialization failure would end it.
          await tx.$executeRawUnsafe(database.provider === 'postgresql' ? "SET LOCAL lock_timeout = '1s'" : 'SET innodb_lock_wait_timeout = 1');
          try {
            await stores.messages.withTransaction(tx).append('contended', user('waiter'));
          } finally {
            if (database.provider === 'mysql') await tx.$executeRawUnsafe('SET innodb_lock_wait_timeout = DEFAULT');
            // A host that goes on regardless: the store refuses its later calls in the transaction.
            afterwards = await stores.messages
              .withTransaction(tx)
              .append('elsewhere', user('later'))
              .catch((error: unknown) => error);
          }
        });
        const failure = await waiter.then(
          () => undefined,
          (error: unknown) => error,
        );
        const waited = Date.now() - started;
        await holder;
        expect(failure).toBeInstanceOf(StoreBusyError);
        expect((failure as Error).message).toMatch(/roll it back and run it again/);
        expect(afterwards).toBeInstanceOf(StoreBusyError);
        expect((afterwards as Error).message).toMatch(/an earlier store call in this transaction met a conflict/);
        expect(await stores.messages.getHistory('elsewhere')).toEqual([]);
        // Once: the store's own retries would have waited a second each, eight times.
        expect(waited).toBeLessThan(2_500);
        expect((await stores.messages.getHistory('contended')).map((m) => m.content)).toEqual(['first', 'holder']);
      });
    }
  });
});
