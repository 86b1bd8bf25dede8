// The driver adapter under an application's own PrismaClient, so that the
// store's fast paths run on the client's own connections (one pool, one
// connection limit) instead of going through Prisma for every append and read.
//
// Prisma 7 keeps the adapter factory it was built with in `_engineConfig.adapter`
// and connects it once, on the first query or $connect (again after a
// $disconnect). The store wraps that factory's connect and dispose, so it holds
// the adapter Prisma runs on for exactly as long as Prisma does.
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/** The adapter Prisma runs on now, or undefined while the client is not connected. */
export type ClientAdapter = () => SqlDriverAdapter | undefined;

const WATCHED = new WeakMap<SqlDriverAdapterFactory, { current?: SqlDriverAdapter }>();

/**
 * Watches the adapter `client` connects, and connects it. Undefined when the
 * client has no adapter factory where Prisma 7 keeps it, or connected before
 * the store could watch it: the store then runs every call through Prisma.
 */
export async function watchClientAdapter(client: object): Promise<ClientAdapter | undefined> {
  const factory = (client as { _engineConfig?: { adapter?: SqlDriverAdapterFactory } })._engineConfig?.adapter;
  if (typeof factory?.connect !== 'function') return undefined;
  let watched = WATCHED.get(factory);
  if (!watched) {
    const state: { current?: SqlDriverAdapter } = {};
    const connect = factory.connect.bind(factory);
    factory.connect = async () => {
      const adapter = await connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = () => {
        if (state.current === adapter) state.current = undefined;
        return dispose();
      };
      state.current = adapter;
      return adapter;
    };
    WATCHED.set(factory, state);
    watched = state;
  }
  await (client as { $connect(): Promise<void> }).$connect();
  const state = watched;
  return state.current ? () => state.current : undefined;
}
