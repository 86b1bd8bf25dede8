// Subsession registrations lock a tree's sessions in one order, so two that
// lock the same tree crosswise queue instead of deadlocking: read from the
// database's own deadlock counters, which a retried deadlock would still move.
// (That exactly one of each pair succeeds is in test/conformance/concurrency.test.ts.)
import type { MessageInput } from '../../src/index.js';
import { eachDatabase } from '../support/databases.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });

eachDatabase((database) => {
  let a: InternalStoreApp;
  let b: InternalStoreApp;
  beforeAll(async () => {
    a = await storeApp({ url: await database.freshUrl() });
    b = await storeApp({ url: a.url, migrate: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  test('registrations that lock the same tree crosswise queue instead of deadlocking', async () => {
    const deadlocks = async (): Promise<number> => {
      if (database.provider === 'postgresql') {
        const [row] = await a.db.client.$queryRawUnsafe<{ n: bigint }[]>('SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()');
        return Number(row.n);
      }
      if (database.provider === 'mysql') {
        const [row] = await a.db.client.$queryRawUnsafe<{ Value: string }[]>("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'");
        return Number(row.Value);
      }
      return 0; // SQLite's writers are serialized: nothing to lock crosswise
    };
    const before = await deadlocks();
    for (let i = 0; i < 10; i++) {
      // x-a < x-b < x-c: one registration holds b and c and needs a; the other holds a and needs c.
      await a.transcripts.addSubsession(`x${i}-a`, `x${i}-b`);
      await a.transcripts.appendMessage(`x${i}-c`, user('c'));
      const results = await Promise.allSettled([a.transcripts.addSubsession(`x${i}-b`, `x${i}-c`), b.transcripts.addSubsession(`x${i}-a`, `x${i}-c`)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
    expect(await deadlocks()).toBe(before);
  });
});
