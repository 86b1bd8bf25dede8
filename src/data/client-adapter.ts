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
/** The transaction found under each transaction client; null where none was. */
const FOUND = new WeakMap<object, Transaction | null>();
/** Transactions ending or ended (their connection goes back to the pool), and those whose end would go unseen. */
const ENDED = new WeakSet<Transaction>();
let probes = 0;

/** Each watched adapter's transactions that have not ended, and whether one of them cannot be seen to end. */
interface OpenTransactions {
  open: Set<Transaction>;
  unwatched: boolean;
}
const OPEN = new WeakMap<SqlDriverAdapter, OpenTransactions>();

/** Wraps each transaction the adapter starts, so that it says when it ends and answers probes (only then: see driverTransactionOf). */
function watchTransactions(adapter: SqlDriverAdapter): void {
  const start = adapter.startTransaction.bind(adapter);
  const open: OpenTransactions = { open: new Set(), unwatched: false };
  OPEN.set(adapter, open);
  replaced(adapter, 'startTransaction', async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
    const transaction = await start(...args);
    const executeRaw = transaction.executeRaw.bind(transaction);
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    const ends = () => {
      ENDED.add(transaction);
      open.open.delete(transaction);
    };
    open.open.add(transaction);
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
    if (!watched) {
      ENDED.add(transaction);
      // Its end cannot be seen: from now on, which transaction is open is never taken from the count (see driverTransactionOf).
      open.unwatched = true;
    }
    return transaction;
  });
}

/**
 * Whether `transaction` ended (or its end would go unseen): from the moment Prisma asks for its
 * COMMIT or ROLLBACK, before that reaches the database, no statement of the store's may follow.
 */
export const hasEnded = (transaction: Transaction): boolean => ENDED.has(transaction);

/** Where Prisma 7 keeps a transaction client's scope: its id, on a stack of the scopes open in that transaction. */
const SCOPE = Symbol.for('prisma.client.transaction.scope_context');

/** Whether the transaction client `tx` is inside its $transaction callback now; false when Prisma does not say. */
function inItsCallback(tx: object): boolean {
  const scope = (tx as Record<symbol, { scopeId?: unknown; scopeState?: { stack?: unknown } } | undefined>)[SCOPE];
  const stack = scope?.scopeState?.stack;
  return Array.isArray(stack) && stack.includes(scope!.scopeId);
}

/**
 * The driver's transaction under `tx`, a Prisma interactive transaction's client of a watched
 * client whose adapter is `adapter`; undefined when it cannot be found (its adapter not watched,
 * or not wrapped). A transaction client inside its callback has its driver's transaction open on
 * the adapter: when that is the one open there (always on SQLite, whose adapter opens one at a
 * time), it is taken at once. Otherwise a probe through `tx` finds it, and Prisma's own errors (a
 * transaction that ended or timed out) come from the probe as they would from any query.
 */
export async function driverTransactionOf(tx: object, adapter: SqlDriverAdapter): Promise<Transaction | undefined> {
  const found = FOUND.get(tx);
  if (found === null) return undefined;
  if (found && !ENDED.has(found)) return found;
  const open = OPEN.get(adapter);
  if (open && !open.unwatched && open.open.size === 1 && inItsCallback(tx)) {
    const [only] = open.open;
    FOUND.set(tx, only);
    return only;
  }
  const probe = `${PROBE}${++probes}`;
  await (tx as { $executeRawUnsafe(sql: string): Promise<number> }).$executeRawUnsafe(probe);
  const transaction = PROBED.get(probe);
  PROBED.delete(probe);
  if (transaction && ENDED.has(transaction)) return undefined;
  // Not found: the probe reached the database, and will on no later call in this transaction.
  FOUND.set(tx, transaction ?? null);
  return transaction;
}
