// Where a store call finds its kit's fast paths: on the pool the store opened,
// on the adapter under the application's PrismaClient (a new one after each
// $disconnect), or on the driver's transaction under an application's
// transaction. StoreDatabase.fastPaths() runs each call on what this finds.
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import { BrokenHostTransaction, type InTransaction } from './adapter-statement.js';
import { adapterTransactions, hostTransactions, readAllIn, writeAllIn } from './adapter-transactions.js';
import { driverTransactionOf, hasEnded, onAdapter, type ClientAdapter } from './client-adapter.js';
import type { FastPaths, ProviderKit } from './provider-kit.js';
import type { PrismaTx } from './store-client.js';

/** Fast paths on a pool, and what each call on them runs inside (a lease that the pool's close waits for). */
export interface PooledFastPaths {
  paths: FastPaths;
  lease?: <T>(call: () => Promise<T>) => Promise<T>;
}

export interface FastPathSource {
  /** Outside an application's transaction: on the adapter Prisma runs on now; undefined when they cannot run there. */
  outside(): PooledFastPaths | undefined | Promise<PooledFastPaths | undefined>;
  /** In the application's transaction `host`: on the driver's transaction under it; undefined when they cannot run there, absent when they never can. */
  inHost?(host: PrismaTx): Promise<FastPaths | undefined>;
}

/** On the store's own pool, one adapter for its life (an application's transaction cannot be one of its client's). */
export function ownPoolFastPaths(kit: ProviderKit, adapter: SqlDriverAdapter): FastPathSource {
  const paths = withTransactions(kit.fastPaths(adapter, true), adapterTransactions(adapter, kit));
  const pooled = paths && { paths };
  return { outside: () => pooled };
}

/** On the adapter under the application's client, as `adapterOf` finds it now, and in its transactions. */
export function clientFastPaths(kit: ProviderKit, adapterOf: ClientAdapter): FastPathSource {
  // One for each adapter Prisma connects, and for each driver transaction under a host transaction.
  const onAdapters = new WeakMap<SqlDriverAdapter, PooledFastPaths | undefined>();
  const inTransactions = new WeakMap<Transaction, FastPaths | undefined>();
  const on = (adapter: SqlDriverAdapter | undefined) => {
    if (!adapter) return undefined;
    if (!onAdapters.has(adapter)) {
      const paths = withTransactions(kit.fastPaths(adapter, false), adapterTransactions(adapter, kit));
      // Each call leases the client's pool, which its $disconnect waits for.
      onAdapters.set(adapter, paths && { paths, lease: (call) => onAdapter(adapter, call) });
    }
    return onAdapters.get(adapter);
  };
  return {
    outside() {
      const adapter = adapterOf();
      return adapter instanceof Promise ? adapter.then(on) : on(adapter);
    },
    async inHost(host) {
      const transaction = await driverTransactionOf(host);
      if (!transaction) return undefined;
      if (!inTransactions.has(transaction)) {
        const check = () => assertOpen(transaction);
        inTransactions.set(transaction, withTransactions(kit.hostFastPaths(transaction, check), hostTransactions(transaction, kit, check)));
      }
      return inTransactions.get(transaction);
    },
  };
}

/** Where the kit's fast paths run, the store's other statements run on the same driver too. */
const withTransactions = (paths: FastPaths | undefined, transaction: InTransaction): FastPaths | undefined =>
  paths && { ...paths, transaction, writeAll: paths.writeAll ?? writeAllIn(transaction), readAll: paths.readAll ?? readAllIn(transaction) };

/**
 * Before each of the store's statements in a host transaction: Prisma may have ended it meanwhile
 * (its timeout, or a callback that returned before the store call did), and its connection with it.
 */
function assertOpen(transaction: Transaction): void {
  if (hasEnded(transaction)) {
    throw new BrokenHostTransaction(
      'your transaction ended (it timed out, or was committed or rolled back) while a store call ran in it, which may have left part of that call in it',
    );
  }
}
