// The targets of the Galera rows, one per node of the cluster: the store as an
// app on each node runs it (StoreModule.forRoot({ url: nodeUrl }), the first
// node's app migrating, the others opening the database as it is), and the raw
// reference with a pool per node. The store retries a commit that failed the
// cluster's certification (a deadlock, 1213); the reference does the same, with
// the store's policy, so that the two do the same work on a hot thread.
import { GALERA_RETRY } from '../../src/databases/mysql/galera.js';
import { bootOurs } from './ours.js';
import { RawMariaDb } from './raw-mariadb.js';
import type { BenchMessage, Target } from './target.js';

/** An app per node, each booted on its node's url; the first applies the migrations. */
export async function openStoreOnNodes(urls: string[]): Promise<Target[]> {
  const nodes: Target[] = [];
  try {
    for (const [i, url] of urls.entries()) nodes.push((await bootOurs({ url, migrate: i === 0 })).target);
  } catch (error) {
    await Promise.all(nodes.map((node) => node.close()));
    throw error;
  }
  return nodes;
}

/** The raw reference's atomic append on each node (its pool of 10), retried as the store retries a failed certification. */
export function openRawOnNodes(urls: string[]): Target[] {
  return urls.map((url) => {
    const raw = new RawMariaDb(url, 'atomic');
    const append = (threadId: string, message: BenchMessage) => certified(() => raw.append(threadId, message));
    return { prepareThread: (id) => raw.prepareThread(id), append, stored: (id) => raw.stored(id), close: () => raw.close() };
  });
}

/** `write`, run again after a certification failure: full-jitter backoff, the store's attempts and delays on a Galera node. */
async function certified(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if ((error as { errno?: number }).errno !== 1213 || attempt >= GALERA_RETRY.attempts) throw error;
      const ceiling = Math.min(GALERA_RETRY.maxDelayMs, GALERA_RETRY.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}
