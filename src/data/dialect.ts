// What differs between the databases, and nothing else.
import { adapterFailureOf } from './db-errors.js';
import type { StoreTx } from './store-client.js';

export type Provider = 'sqlite' | 'postgresql' | 'mysql';

/** Prisma's isolation level names; SQLite's adapter reads Serializable as "take the write lock up front". */
type IsolationLevel = 'Serializable' | 'RepeatableRead' | 'ReadCommitted';

export interface Dialect {
  readonly provider: Provider;
  /** Writes lock their thread row first; read committed then sees every write that committed before the lock. */
  readonly writeIsolation: IsolationLevel;
  /** Reads of several statements see one snapshot. Undefined: SQLite's deferred transaction, which is one. */
  readonly readIsolation: IsolationLevel | undefined;
  /**
   * Creates the thread if it is missing and hands out `count` sequence numbers
   * (count may be 0). Returns the last one handed out. The thread row stays
   * locked until the transaction ends, so writers to one thread queue here.
   */
  reserveSeqs(tx: StoreTx, threadId: string, count: number, now: Date): Promise<number>;
  /** Locks existing thread rows until the transaction ends, in id order, in one statement. */
  lockThreads(tx: StoreTx, ids: string[]): Promise<void>;
  /** Creates the thread if it is missing, without locking it when it exists; true when it created it. */
  ensureThread(tx: StoreTx, id: string, now: Date): Promise<boolean>;
}

// PostgreSQL and SQLite: DO NOTHING takes no lock on an existing row.
async function insertIfMissing(tx: StoreTx, id: string, now: Date): Promise<boolean> {
  const inserted = await tx.$executeRaw`INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (${id}, 0, ${now}, ${now}) ON CONFLICT (id) DO NOTHING`;
  return inserted > 0;
}

const selectForUpdate =
  (placeholder: (i: number) => string) =>
  async (tx: StoreTx, ids: string[]): Promise<void> => {
    if (ids.length === 0) return;
    const list = ids.map((_, i) => placeholder(i)).join(', ');
    await tx.$queryRawUnsafe(`SELECT id FROM agent_thread WHERE id IN (${list}) ORDER BY id FOR UPDATE`, ...ids);
  };

// SQLite's write transactions hold the database's one write lock: rows need no locks of their own.
const alreadyLocked = async () => {};

// PostgreSQL and SQLite (3.35+) upsert and return in one statement.
async function upsertReturning(tx: StoreTx, threadId: string, count: number, now: Date): Promise<number> {
  const rows = await tx.$queryRaw<{ last_seq: number | bigint }[]>`
    INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (${threadId}, ${count}, ${now}, ${now})
    ON CONFLICT (id) DO UPDATE SET last_seq = agent_thread.last_seq + ${count}, updated_at = ${now}
    RETURNING last_seq`;
  return Number(rows[0].last_seq);
}

export const DIALECTS: Record<Provider, Dialect> = {
  sqlite: {
    provider: 'sqlite',
    writeIsolation: 'Serializable',
    readIsolation: undefined,
    reserveSeqs: upsertReturning,
    lockThreads: alreadyLocked,
    ensureThread: insertIfMissing,
  },
  postgresql: {
    provider: 'postgresql',
    writeIsolation: 'ReadCommitted',
    readIsolation: 'RepeatableRead',
    reserveSeqs: upsertReturning,
    lockThreads: selectForUpdate((i) => `$${i + 1}`),
    ensureThread: insertIfMissing,
  },
  mysql: {
    provider: 'mysql',
    writeIsolation: 'ReadCommitted',
    readIsolation: 'RepeatableRead',
    lockThreads: selectForUpdate(() => '?'),
    // INSERT IGNORE would swallow every error, and ON DUPLICATE KEY locks the row. A
    // read-committed INSERT … SELECT reads without locking; a racing insert of the same
    // id makes ours a duplicate, which (MySQL keeps the transaction) means it exists.
    async ensureThread(tx, id, now) {
      try {
        const inserted = await tx.$executeRaw`
          INSERT INTO agent_thread (id, last_seq, created_at, updated_at)
          SELECT ${id}, 0, ${now}, ${now} FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM agent_thread WHERE id = ${id})`;
        return inserted > 0;
      } catch (error) {
        if (adapterFailureOf(error)?.kind !== 'UniqueConstraintViolation' && (error as { code?: string }).code !== 'P2002') throw error;
        return false;
      }
    },
    // MySQL has no RETURNING on upserts; its own write is visible to the read that follows.
    async reserveSeqs(tx, threadId, count, now) {
      await tx.$executeRaw`
        INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (${threadId}, ${count}, ${now}, ${now})
        ON DUPLICATE KEY UPDATE last_seq = last_seq + VALUES(last_seq), updated_at = VALUES(updated_at)`;
      const rows = await tx.$queryRaw<{ last_seq: number | bigint }[]>`SELECT last_seq FROM agent_thread WHERE id = ${threadId}`;
      return Number(rows[0].last_seq);
    },
  },
};
