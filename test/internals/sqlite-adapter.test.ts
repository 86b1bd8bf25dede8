// The store's SQLite adapter under a real Prisma client on a real file.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from '../../src/generated/sqlite/client.js';
import { migrate } from '../../src/engine/open-database.js';
import { KITS } from '../../src/databases/index.js';
import { SerializedSqliteAdapterFactory } from '../../src/databases/sqlite/sqlite-adapter-factory.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-store-adapter-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
async function migratedFile(): Promise<string> {
  const path = join(dir, `db-${++counter}.sqlite`);
  await migrate(new SerializedSqliteAdapterFactory(`file:${path}`), KITS.sqlite);
  return path;
}

const clients: PrismaClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.$disconnect()));
});

function clientOn(path: string, adapter: 'store' | 'stock' = 'store'): PrismaClient {
  const url = `file:${path}`;
  const client = new PrismaClient({ adapter: adapter === 'store' ? new SerializedSqliteAdapterFactory(url) : new PrismaBetterSqlite3({ url }) });
  clients.push(client);
  return client;
}

/** What a separate connection, outside Prisma, sees in the file. */
function tombstoneIds(path: string): string[] {
  const db = new Database(path, { fileMustExist: true, readonly: true });
  try {
    return (db.prepare('SELECT id FROM agent_tombstone ORDER BY id').all() as { id: string }[]).map((row) => row.id);
  } finally {
    db.close();
  }
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens an interactive transaction that writes `inside` and then rolls back;
 * while it is open, writes `outside` on the plain client. Resolves with
 * whether the outside write had completed before the rollback.
 */
async function writeDuringRolledBackTransaction(client: PrismaClient) {
  let outside: Promise<unknown> | undefined;
  let outsideDoneBeforeRollback = false;
  await expect(
    client.$transaction(async (tx) => {
      await tx.agentTombstone.create({ data: { id: 'inside' } });
      let done = false;
      outside = client.agentTombstone.create({ data: { id: 'outside' } }).then(() => (done = true));
      await tick();
      await tx.agentTombstone.count();
      outsideDoneBeforeRollback = done;
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  await outside;
  return { outsideDoneBeforeRollback };
}

describe('SerializedSqliteAdapterFactory with PrismaClient', () => {
  it('a plain write issued during an interactive transaction that rolls back waits for it and is kept', async () => {
    const path = await migratedFile();
    const client = clientOn(path);

    const { outsideDoneBeforeRollback } = await writeDuringRolledBackTransaction(client);

    expect(outsideDoneBeforeRollback).toBe(false);
    expect(await client.agentTombstone.findMany({ select: { id: true } })).toEqual([{ id: 'outside' }]);
    expect(tombstoneIds(path)).toEqual(['outside']);
  });

  // The control: the same scenario loses the write on Prisma's stock adapter,
  // so the test above can tell the two apart (see /work/shared/notes/prisma-offline.md).
  it("control: Prisma's stock better-sqlite3 adapter runs that write inside the transaction and loses it", async () => {
    const path = await migratedFile();
    const client = clientOn(path, 'stock');

    const { outsideDoneBeforeRollback } = await writeDuringRolledBackTransaction(client);

    expect(outsideDoneBeforeRollback).toBe(true);
    expect(tombstoneIds(path)).toEqual([]);
  });

  it('a Serializable transaction holds the write lock from its start', async () => {
    const path = await migratedFile();
    const client = clientOn(path);
    const other = new Database(path, { timeout: 0 });
    try {
      const insert = other.prepare('INSERT INTO agent_tombstone (id) VALUES (?)');
      await client.$transaction(
        async (tx) => {
          // Nothing written yet: the lock was taken by BEGIN IMMEDIATE.
          expect(() => insert.run('other-during')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
          await tx.agentTombstone.create({ data: { id: 'tx' } });
          expect(() => insert.run('other-during-2')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
        },
        { isolationLevel: 'Serializable' },
      );
      // Released at commit.
      insert.run('other-after');
    } finally {
      other.close();
    }
    expect(tombstoneIds(path)).toEqual(['other-after', 'tx']);
  });

  it('a transaction with no isolation level is a deferred read snapshot that does not lock writers out', async () => {
    const path = await migratedFile();
    const client = clientOn(path);
    await client.agentTombstone.create({ data: { id: 'a' } });
    const other = new Database(path, { timeout: 0 });
    try {
      await client.$transaction(async (tx) => {
        expect(await tx.agentTombstone.count()).toBe(1);
        other.prepare('INSERT INTO agent_tombstone (id) VALUES (?)').run('b');
        // The snapshot taken by the first read does not see the later commit.
        expect(await tx.agentTombstone.count()).toBe(1);
      });
    } finally {
      other.close();
    }
    expect(await client.agentTombstone.count()).toBe(2);
  });

  it('the client connection runs with journal_mode=wal, foreign_keys=1, synchronous=NORMAL and busy_timeout=0 (SQLite never sleeps inside a call)', async () => {
    const path = await migratedFile();
    const client = clientOn(path);

    const pragma = async (name: string) => {
      const rows = await client.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`);
      return rows[0][name] ?? rows[0][Object.keys(rows[0])[0]];
    };
    expect(String(await pragma('journal_mode')).toLowerCase()).toBe('wal');
    expect(Number(await pragma('foreign_keys'))).toBe(1);
    expect(Number(await pragma('synchronous'))).toBe(1);
    expect(Number(await pragma('busy_timeout'))).toBe(0);

    // And they act: a message for a missing thread violates its foreign key.
    await expect(client.agentMessage.create({ data: { threadId: 'missing', seq: 1, role: 'user', content: 'x' } })).rejects.toMatchObject({
      code: 'P2003',
    });
  });

  it("a write that meets another connection's lock waits on timers, so a timer can release the lock, for busyTimeoutMs at most", async () => {
    const path = await migratedFile();
    const client = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(`file:${path}`, { busyTimeoutMs: 1_500 }) });
    clients.push(client);
    const other = new Database(path, { timeout: 0 });
    const timers: NodeJS.Timeout[] = [];
    try {
      // Released by a timer: a wait inside SQLite would hold the event loop, the timer would not run, and the write would fail.
      other.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      timers.push(setTimeout(() => other.exec('COMMIT'), 200));
      await client.agentTombstone.create({ data: { id: 'after-a-wait' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);

      // Held past busyTimeoutMs: the write fails busy after the bound, and writes nothing.
      other.exec('BEGIN IMMEDIATE');
      const release = setTimeout(() => other.exec('COMMIT'), 5_000);
      timers.push(release);
      const refused = Date.now();
      await expect(client.agentTombstone.create({ data: { id: 'refused' } })).rejects.toMatchObject({ code: 'P1008' });
      expect(Date.now() - refused).toBeGreaterThanOrEqual(1_400);
      expect(Date.now() - refused).toBeLessThan(4_000);
      clearTimeout(release);
      other.exec('COMMIT');
    } finally {
      timers.forEach(clearTimeout);
      other.close();
    }
    expect(tombstoneIds(path)).toEqual(['after-a-wait']);
  });

  it("a write after a read in a deferred transaction that meets another writer fails at once, as SQLite's own handler would: only the whole transaction can run again", async () => {
    const path = await migratedFile();
    const client = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(`file:${path}`, { busyTimeoutMs: 5_000 }) });
    clients.push(client);
    const other = new Database(path, { timeout: 0 });
    try {
      const started = Date.now();
      await expect(
        client.$transaction(async (tx) => {
          await tx.agentTombstone.count();
          other.exec('BEGIN IMMEDIATE');
          await tx.agentTombstone.create({ data: { id: 'late' } });
        }),
      ).rejects.toThrow();
      // Waiting out the 5 s could not help: the other writer's commit would leave this snapshot stale.
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
    expect(tombstoneIds(path)).toEqual([]);
  });

  it('plain writes and transactions issued concurrently all commit', async () => {
    const path = await migratedFile();
    const client = clientOn(path);
    const work = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? client.agentTombstone.create({ data: { id: `p${String(i).padStart(2, '0')}` } })
        : client.$transaction(
            async (tx) => {
              await tx.agentTombstone.create({ data: { id: `t${String(i).padStart(2, '0')}` } });
              await tick(1);
            },
            { isolationLevel: 'Serializable' },
          ),
    );
    await Promise.all(work);
    expect(tombstoneIds(path)).toHaveLength(20);
  });

  it('a rolled-back transaction leaves the connection usable and outside any transaction', async () => {
    const path = await migratedFile();
    const client = clientOn(path);
    await expect(
      client.$transaction(
        async (tx) => {
          await tx.agentTombstone.create({ data: { id: 'x' } });
          await tx.agentTombstone.create({ data: { id: 'x' } });
        },
        { isolationLevel: 'Serializable' },
      ),
    ).rejects.toMatchObject({ code: 'P2002' });
    await client.agentTombstone.create({ data: { id: 'y' } });
    // Visible to another connection at once: it was committed, not left in an open transaction.
    expect(tombstoneIds(path)).toEqual(['y']);
  });
});

describe('several connections of one process to one file', () => {
  it('queue behind one lock instead of stalling each other until the busy timeout', async () => {
    const path = await migratedFile();
    const url = `file:${path}`;
    const slow = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(url, { busyTimeoutMs: 5_000 }) });
    const other = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(url, { busyTimeoutMs: 5_000 }) });
    clients.push(slow, other);
    const started = Date.now();
    await Promise.all([
      slow.$transaction(
        async (tx) => {
          await tx.agentTombstone.create({ data: { id: 'in-transaction' } });
          await tick(50);
        },
        { isolationLevel: 'Serializable' },
      ),
      tick(10).then(() => other.agentTombstone.create({ data: { id: 'other-client' } })),
    ]);
    // A stalled connection would have waited out the 5 s busy timeout and failed.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(tombstoneIds(path)).toEqual(['in-transaction', 'other-client']);
  });

  it("share that lock however they spell the path (a symlinked directory, a ..): a write queues behind the other spelling's transaction instead of failing busy", async () => {
    const path = await migratedFile();
    const linked = join(mkdtempSync(join(tmpdir(), 'agent-store-link-')), 'linked');
    symlinkSync(dir, linked);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const holding = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(`file:${path}`) });
    clients.push(holding);
    for (const [n, spelling] of [join(linked, basename(path)), join(dir, 'sub', '..', basename(path))].entries()) {
      // 100 ms of waiting for a lock SQLite holds: far less than the transaction lasts, so only the shared queue lets the write through.
      const other = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(`file:${spelling}`, { busyTimeoutMs: 100 }) });
      clients.push(other);
      await other.agentTombstone.count();
      await Promise.all([
        holding.$transaction(
          async (tx) => {
            await tx.agentTombstone.create({ data: { id: `held-${n}` } });
            await tick(1_000);
          },
          { isolationLevel: 'Serializable' },
        ),
        tick(50).then(() => other.agentTombstone.create({ data: { id: `queued-${n}` } })),
      ]);
    }
    expect(tombstoneIds(path)).toEqual(['held-0', 'held-1', 'queued-0', 'queued-1']);
  });
});
