// The driver adapter under an application's own PrismaClient, so that the
// store's fast paths run on the client's own connections (one pool, one
// connection limit) instead of going through Prisma for every append and read.
//
// Prisma 7 keeps the adapter factory it was built with in `_engineConfig.adapter`
// and connects it once, on the first query or $connect (again after a
// $disconnect). The store wraps that factory's connect and the adapter's
// dispose, so it holds the adapter Prisma runs on for exactly as long as Prisma
// does. Whatever cannot be wrapped (a frozen object) is left as it is, and the
// store goes through Prisma: the application's client never fails for it.
//
// Inside the application's interactive transaction the fast paths run on the
// driver's transaction under it, which Prisma does not hand out: the store
// wraps the adapter's startTransaction too, and finds the transaction under a
// transaction client by sending a probe through it (see driverTransactionOf).
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

/** The adapter Prisma runs on now, or undefined while the client is not connected. */
export type ClientAdapter = () => SqlDriverAdapter | undefined;

interface Watch {
  current?: SqlDriverAdapter;
}

const WATCHED = new WeakMap<SqlDriverAdapterFactory, Watch>();

/**
 * Watches the adapter `client` connects, and connects it. Undefined when the
 * client has no adapter factory where Prisma 7 keeps it, the factory cannot be
 * wrapped, or the client connected before the store could watch it: the store
 * then runs every call through Prisma.
 */
export async function watchClientAdapter(client: object): Promise<ClientAdapter | undefined> {
  const factory = (client as { _engineConfig?: { adapter?: SqlDriverAdapterFactory } })._engineConfig?.adapter;
  if (typeof factory?.connect !== 'function') return undefined;
  const watch = WATCHED.get(factory) ?? wrapFactory(factory);
  if (!watch) return undefined;
  await (client as { $connect(): Promise<void> }).$connect();
  return watch.current ? () => watch.current : undefined;
}

function wrapFactory(factory: SqlDriverAdapterFactory): Watch | undefined {
  const watch: Watch = {};
  const connect = factory.connect.bind(factory);
  const watchedConnect = async () => {
    const adapter = await connect();
    if (watchDisposal(adapter, watch)) watch.current = adapter;
    watchTransactions(adapter);
    return adapter;
  };
  if (!replaced(factory, 'connect', watchedConnect)) return undefined;
  WATCHED.set(factory, watch);
  return watch;
}

/** Forgets `adapter` when Prisma disposes of it; false when its dispose cannot be wrapped (it is then never used). */
function watchDisposal(adapter: SqlDriverAdapter, watch: Watch): boolean {
  const dispose = adapter.dispose.bind(adapter);
  return replaced(adapter, 'dispose', () => {
    if (watch.current === adapter) watch.current = undefined;
    return dispose();
  });
}

/** Sets `object[key]` to `value`; false when the object refuses it. */
function replaced<T extends object, K extends keyof T>(object: T, key: K, value: T[K]): boolean {
  return Reflect.set(object, key, value) && object[key] === value;
}

/**
 * The probe's SQL begins so. A watched transaction answers it without sending
 * it; one that is not watched sends it, a harmless SELECT, and is not found.
 */
const PROBE = '/* nestjs-agent-store: which driver transaction */ SELECT ';
/** Each probe's transaction, from its answer until its prober reads it. */
const PROBED = new Map<string, Transaction>();
/** The driver's transaction found under each Prisma transaction (see transactionKey); null where none was. */
const FOUND = new WeakMap<object, Transaction | null>();
/** Transactions ending or ended (their connection goes back to the pool), and those whose end would go unseen. */
const ENDED = new WeakSet<Transaction>();
let probes = 0;

/** Wraps each transaction the adapter starts, so that it says when it ends and answers probes (only then: see driverTransactionOf). */
function watchTransactions(adapter: SqlDriverAdapter): void {
  const start = adapter.startTransaction.bind(adapter);
  replaced(adapter, 'startTransaction', async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
    const transaction = await start(...args);
    const executeRaw = transaction.executeRaw.bind(transaction);
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    const ends = () => ENDED.add(transaction);
    // A transaction whose end would go unseen must never be found: it answers probes only if all three are wrapped.
    const watched =
      replaced(transaction, 'commit', () => (ends(), commit())) &&
      replaced(transaction, 'rollback', () => (ends(), rollback())) &&
      replaced(transaction, 'executeRaw', (query: SqlQuery) => {
        if (query.sql.startsWith(PROBE)) {
          PROBED.set(query.sql, transaction);
          return Promise.resolve(0);
        }
        // Some adapters have Prisma send COMMIT and ROLLBACK here, then call commit() or rollback().
        if (query.sql === 'COMMIT' || query.sql === 'ROLLBACK') ends();
        return executeRaw(query);
      });
    if (!watched) ENDED.add(transaction);
    return transaction;
  });
}

/**
 * Whether `transaction` ended (or its end would go unseen): from the moment Prisma asks for its
 * COMMIT or ROLLBACK, before that reaches the database, no statement of the store's may follow.
 */
export const hasEnded = (transaction: Transaction): boolean => ENDED.has(transaction);

/** Where Prisma 7 keeps a transaction client's scope: its transaction's state, which nested transaction clients share. */
const SCOPE = Symbol.for('prisma.client.transaction.scope_context');

/**
 * What stands for the Prisma transaction of the transaction client `tx`: the scope state its
 * nested clients share (nestjs-cls's Nested propagation makes one), or `tx` itself where Prisma
 * does not say. The store's calls queue, and are refused after a conflict, per transaction.
 */
export function transactionKey(tx: object): object {
  const state = (tx as Record<symbol, { scopeState?: unknown } | undefined>)[SCOPE]?.scopeState;
  return typeof state === 'object' && state !== null ? state : tx;
}

/**
 * The driver's transaction under `tx`, a Prisma interactive transaction's client of a watched
 * client; undefined when it cannot be found (its adapter not watched, or not wrapped). A probe
 * through `tx` finds it, once per transaction; Prisma's own errors (a transaction that ended or
 * timed out) come from the probe as they would from any query.
 */
export async function driverTransactionOf(tx: object): Promise<Transaction | undefined> {
  const key = transactionKey(tx);
  const found = FOUND.get(key);
  if (found === null) return undefined;
  if (found && !ENDED.has(found)) return found;
  const probe = `${PROBE}${++probes}`;
  await (tx as { $executeRawUnsafe(sql: string): Promise<number> }).$executeRawUnsafe(probe);
  const transaction = PROBED.get(probe);
  PROBED.delete(probe);
  if (transaction && ENDED.has(transaction)) return undefined;
  // Not found: the probe reached the database, and will on no later call in this transaction.
  FOUND.set(key, transaction ?? null);
  return transaction;
}
