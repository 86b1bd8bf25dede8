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
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

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
