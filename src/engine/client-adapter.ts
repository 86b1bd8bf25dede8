// The driver adapter under an application's own PrismaClient, so that the
// store's fast paths run on the client's own connections (one pool, one
// connection limit) instead of going through Prisma for every append and read.
//
// Prisma 7 keeps the adapter factory it was built with in `_engineConfig.adapter`
// and connects it on the first query or $connect (again after a $disconnect).
// The store wraps that factory's connect and its adapters' dispose, executeRaw
// and startTransaction. A factory can serve more than one client, so the store
// finds its client's adapter by asking: a probe statement sent through the
// client, which the adapter under it answers itself (see adoptedAdapter). What
// cannot be wrapped (a frozen object, a client connected before the store) is
// left as it is, and the store goes through Prisma: the application's client
// never fails for it.
//
// Inside the application's interactive transaction the fast paths run on the
// driver's transaction under it, which Prisma does not hand out: the store maps
// Prisma's transaction id to it when it starts, and otherwise finds it with a
// probe through the transaction's client (see driverTransactionOf).
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import { StoreUnavailableError } from '../store.errors.js';

/** The adapter the client runs on now, or undefined while it cannot be known (the call then goes through Prisma). */
export type ClientAdapter = () => SqlDriverAdapter | undefined | Promise<SqlDriverAdapter | undefined>;

/** A wrapped factory: what its adapters did while a store was looking. */
interface FactoryWatch {
  /** Driver transactions started during each transaction start the store is timing. */
  starting: Set<Transaction[]>;
  /** Bumped on every connect and dispose: whether asking again which adapter is the client's can find another. */
  generation: number;
}

const FACTORIES = new WeakMap<SqlDriverAdapterFactory, FactoryWatch>();
/** Adapters disposed of (their pool is closed). */
const DISPOSED = new WeakSet<SqlDriverAdapter>();

/**
 * Watches the adapter `client` runs on. Undefined when the client has no adapter factory where
 * Prisma 7 keeps it, or the factory cannot be wrapped: the store then runs every call through
 * Prisma. The adapter is known once a probe through the client found it (now, and again after
 * the application disconnected it); see adoptedAdapter.
 */
export async function watchClientAdapter(client: object): Promise<ClientAdapter | undefined> {
  // One watch for each engine, which the client's $extends clients share, for every store on it.
  const key = (client as { _engine?: object })._engine ?? client;
  if (!CLIENTS.has(key)) CLIENTS.set(key, watched(client));
  return CLIENTS.get(key);
}
/** Whether `tx` is a transaction client of `client`: Prisma gives a client's transactions its own engine config. */
export function isTransactionOf(tx: unknown, client: object): boolean {
  return (tx as { _engineConfig?: unknown } | null)?._engineConfig === (client as { _engineConfig?: unknown })._engineConfig;
}

const CLIENTS = new WeakMap<object, Promise<ClientAdapter | undefined>>();

async function watched(client: object): Promise<ClientAdapter | undefined> {
  const factory = (client as { _engineConfig?: { adapter?: SqlDriverAdapterFactory } })._engineConfig?.adapter;
  if (typeof factory?.connect !== 'function') return undefined;
  const watch = FACTORIES.get(factory) ?? wrapFactory(factory);
  if (!watch) return undefined;
  let adapter: SqlDriverAdapter | undefined;
  const own = () => (adapter && !DISPOSED.has(adapter) ? adapter : undefined);
  watchTransactionStarts(client, watch, own);
  let triedAt = watch.generation;
  let asking: Promise<SqlDriverAdapter | undefined> | undefined;
  adapter = await adoptedAdapter(client);
  return () => {
    if (own()) return adapter;
    // Calls that come while the store asks wait for its answer.
    if (asking) return asking;
    // None yet, or disposed ($disconnect): ask again, once for each connect or dispose the factory saw.
    if (triedAt === watch.generation) return undefined;
    triedAt = watch.generation;
    asking = adoptedAdapter(client).then(
      (found) => ((asking = undefined), (adapter = found)),
      (error: unknown) => ((asking = undefined), Promise.reject(error)),
    );
    return asking;
  };
}

/** The probe's SQL begins so: a watched adapter, or transaction, answers it without sending it. */
const PROBE = '/* nestjs-agent-store: which driver adapter */ SELECT ';
/** What answered each probe, from its answer until its prober reads it. */
const PROBED = new Map<string, SqlDriverAdapter | Transaction>();
let probes = 0;

/**
 * Sends a probe through `query` (a client, or a transaction's client), which connects the client
 * if it is not; what answered it, or undefined where it reached the database (nothing watched under it).
 */
async function probe(query: object): Promise<SqlDriverAdapter | Transaction | undefined> {
  const sql = `${PROBE}${++probes}`;
  try {
    await (query as { $executeRawUnsafe(sql: string): Promise<number> }).$executeRawUnsafe(sql);
    return PROBED.get(sql);
  } finally {
    PROBED.delete(sql);
  }
}

/** The adapter under `client`: the watched adapter that answered a probe sent through it, if one did and lives. */
async function adoptedAdapter(client: object): Promise<SqlDriverAdapter | undefined> {
  const answered = (await probe(client)) as SqlDriverAdapter | undefined;
  return answered && !DISPOSED.has(answered) ? answered : undefined;
}

function wrapFactory(factory: SqlDriverAdapterFactory): FactoryWatch | undefined {
  const watch: FactoryWatch = { starting: new Set(), generation: 0 };
  const connect = factory.connect.bind(factory);
  const watchedConnect = async () => {
    const adapter = await connect();
    watch.generation++;
    // An adapter whose dispose goes unseen never answers a probe: the store could run on a closed pool.
    if (watchDisposal(adapter, watch)) answerProbes(adapter);
    watchTransactions(adapter, watch);
    return adapter;
  };
  if (!replaced(factory, 'connect', watchedConnect)) return undefined;
  FACTORIES.set(factory, watch);
  return watch;
}

/**
 * Marks `adapter` disposed when Prisma disposes of it ($disconnect), so that no store call starts
 * on it, and closes its pool once the store's calls on it have finished (see onAdapter): a pool
 * closed under them would leave them waiting for ever (pg) or failing halfway (mariadb). False
 * when its dispose cannot be wrapped.
 */
function watchDisposal(adapter: SqlDriverAdapter, watch: FactoryWatch): boolean {
  const dispose = adapter.dispose.bind(adapter);
  return replaced(adapter, 'dispose', async () => {
    DISPOSED.add(adapter);
    watch.generation++;
    const calls = CALLS.get(adapter);
    if (calls && calls.count > 0) await new Promise<void>((resolve) => (calls.idle = resolve));
    return dispose();
  });
}

/** The store's calls running on each adapter, and what its dispose waits on. */
const CALLS = new WeakMap<SqlDriverAdapter, { count: number; idle?: () => void }>();

/** A store call found the client's adapter disposed before it began: it asks for the client's adapter again. */
export class AdapterDisposed extends StoreUnavailableError {
  constructor() {
    super('your PrismaClient disconnected before this call began, and did not connect again');
  }
}

/** Runs a store call on `adapter` (the client's), which Prisma's dispose of it waits for; AdapterDisposed once it was disposed. */
export async function onAdapter<T>(adapter: SqlDriverAdapter, work: () => Promise<T>): Promise<T> {
  if (DISPOSED.has(adapter)) throw new AdapterDisposed();
  let calls = CALLS.get(adapter);
  if (!calls) CALLS.set(adapter, (calls = { count: 0 }));
  calls.count++;
  try {
    return await work();
  } finally {
    if (--calls.count === 0) calls.idle?.();
  }
}

/** Has `adapter` answer the probes Prisma sends it outside transactions (see adoptedAdapter). */
function answerProbes(adapter: SqlDriverAdapter): void {
  const executeRaw = adapter.executeRaw.bind(adapter);
  replaced(adapter, 'executeRaw', (query: SqlQuery) => {
    if (!query.sql.startsWith(PROBE)) return executeRaw(query);
    PROBED.set(query.sql, adapter);
    return Promise.resolve(0);
  });
}

/** Sets `object[key]` to `value`; false when the object refuses it. */
function replaced<T extends object, K extends keyof T>(object: T, key: K, value: T[K]): boolean {
  return Reflect.set(object, key, value) && object[key] === value;
}

/** The driver's transaction under each Prisma transaction id, from its start to its end. */
const BY_ID = new Map<string, Transaction>();
/** Each mapped transaction's Prisma id, to forget it when it ends. */
const ID_OF = new WeakMap<Transaction, string>();

/**
 * Times each transaction start of `client`'s engine (Prisma 7 keeps it in `_engine`): when the
 * factory's adapters started exactly one driver transaction meanwhile, on the adapter known to be
 * the client's (`own`), that one is the start's own (it always starts one), and Prisma's id for it
 * maps to it. Starts that overlap see two and map nothing, nor does a start while the client's
 * adapter is not known (another client's transaction could be the only one); their transactions
 * are found by a probe (see driverTransactionOf).
 */
function watchTransactionStarts(client: object, watch: FactoryWatch, own: () => SqlDriverAdapter | undefined): void {
  type Start = (action: string, headers: unknown, options?: { newTxId?: string }) => Promise<{ id: string } | undefined>;
  const engine = (client as { _engine?: { transaction?: Start } })._engine;
  const transaction = engine?.transaction;
  if (typeof transaction !== 'function' || STARTS_WATCHED.has(engine!)) return;
  const start = transaction.bind(engine);
  const timed: Start = async (action, headers, options) => {
    // A nested start is a savepoint in the transaction already mapped.
    if (action !== 'start' || options?.newTxId) return start(action, headers, options);
    const started: Transaction[] = [];
    watch.starting.add(started);
    try {
      const result = await start(action, headers, options);
      const [only] = started;
      const adapter = own();
      if (result && started.length === 1 && adapter !== undefined && ADAPTER_OF.get(only) === adapter && !ENDED.has(only)) {
        BY_ID.set(result.id, only);
        ID_OF.set(only, result.id);
      }
      return result;
    } finally {
      watch.starting.delete(started);
    }
  };
  if (replaced(engine!, 'transaction', timed)) STARTS_WATCHED.add(engine!);
}
const STARTS_WATCHED = new WeakSet<object>();

/** Each watched transaction's adapter. */
const ADAPTER_OF = new WeakMap<Transaction, SqlDriverAdapter>();
/** The driver's transaction a probe found under each Prisma transaction (see transactionKey); null where none was. */
const FOUND = new WeakMap<object, Transaction | null>();
/** Transactions ending or ended (their connection goes back to the pool), and those whose end would go unseen. */
const ENDED = new WeakSet<Transaction>();

/** Wraps each transaction the adapter starts, so that it says when it ends and can be found (only then: see driverTransactionOf). */
function watchTransactions(adapter: SqlDriverAdapter, watch: FactoryWatch): void {
  const start = adapter.startTransaction.bind(adapter);
  replaced(adapter, 'startTransaction', async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
    const transaction = await start(...args);
    ADAPTER_OF.set(transaction, adapter);
    const executeRaw = transaction.executeRaw.bind(transaction);
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    const ends = () => {
      ENDED.add(transaction);
      const id = ID_OF.get(transaction);
      if (id !== undefined) BY_ID.delete(id);
    };
    // A transaction whose end would go unseen must never be found: it is found only if all three are wrapped.
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
    for (const started of watch.starting) started.push(transaction);
    return transaction;
  });
}

/**
 * Whether `transaction` ended (or its end would go unseen): from the moment Prisma asks for its
 * COMMIT or ROLLBACK, before that reaches the database, no statement of the store's may follow.
 */
export const hasEnded = (transaction: Transaction): boolean => ENDED.has(transaction);

/** Where Prisma 7 keeps a transaction client's scope: its transaction's id, and its state, which nested transaction clients share. */
const SCOPE = Symbol.for('prisma.client.transaction.scope_context');
type Scope = { txId?: unknown; scopeState?: unknown } | undefined;

/**
 * What stands for the Prisma transaction of the transaction client `tx`: the scope state its
 * nested clients share (nestjs-cls's Nested propagation makes one), or `tx` itself where Prisma
 * does not say. The store's calls queue, and are refused after a conflict, per transaction.
 */
export function transactionKey(tx: object): object {
  const state = (tx as Record<symbol, Scope>)[SCOPE]?.scopeState;
  return typeof state === 'object' && state !== null ? state : tx;
}

/**
 * The driver's transaction under `tx`, a Prisma interactive transaction's client of a watched
 * client; undefined when it cannot be found (its adapter not watched, or not wrapped). Prisma's
 * id for it, mapped at its start, finds it; where that start was not timed alone, a probe through
 * `tx` does, once per transaction, and Prisma's own errors (a transaction that ended or timed out)
 * come from the probe as they would from any query.
 */
export async function driverTransactionOf(tx: object): Promise<Transaction | undefined> {
  const id = (tx as Record<symbol, Scope>)[SCOPE]?.txId;
  const mapped = typeof id === 'string' ? BY_ID.get(id) : undefined;
  if (mapped) return mapped;
  const key = transactionKey(tx);
  const found = FOUND.get(key);
  if (found === null) return undefined;
  if (found && !ENDED.has(found)) return found;
  const transaction = (await probe(tx)) as Transaction | undefined;
  if (transaction && ENDED.has(transaction)) return undefined;
  // Not found: the probe reached the database, and will on no later call in this transaction.
  FOUND.set(key, transaction ?? null);
  return transaction;
}
