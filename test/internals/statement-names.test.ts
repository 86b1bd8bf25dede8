// PostgreSQL's hot statements as named prepared statements (src/databases/postgresql/statement-names.ts):
// on the store's own pool, appends, history reads, counts and header updates are named, planned once per
// connection; statements in a transaction are not; a connection that lost its names (as behind PgBouncer in
// transaction mode) is answered by the same statement unnamed, and nothing is lost or written twice.
import pg from 'pg';
import { describeWith, POSTGRESQL } from '../support/databases.js';
import { storeApp, storeThroughPrisma, type InternalStoreApp } from '../support/store-app.js';

/** The name each statement sent through node-postgres carried (undefined: unnamed), in order. */
async function namesSent(work: () => Promise<unknown>): Promise<{ text: string; name: string | undefined }[]> {
  const sent: { text: string; name: string | undefined }[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { text?: string; name?: string } | string;
    if (typeof config === 'object' && config.text) sent.push({ text: config.text.replace(/\s+/g, ' ').slice(0, 40), name: config.name });
    return (original as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await work();
    return sent;
  } finally {
    pg.Client.prototype.query = original;
  }
}

describeWith(POSTGRESQL.available, 'PostgreSQL binaries missing')('[PostgreSQL] named statements', () => {
  let store: InternalStoreApp;
  afterEach(async () => store?.close());

  test('on its url, the store names its hot statements, in its own transactions too, never BEGIN or COMMIT; one text, one name', async () => {
    store = await storeApp({ url: await POSTGRESQL.freshUrl(), migrate: true });
    await store.messages.append('named', { role: 'user', content: 'creates the thread in a transaction' });
    const sent = await namesSent(async () => {
      await store.messages.append('named', { role: 'assistant', content: 'one' });
      await store.messages.append('named', { role: 'user', content: 'two' });
      await store.messages.getHistory('named');
      await store.messages.count('named');
      await store.sessions.update('named', { title: 'named' });
      await store.messages.append('named-new', { role: 'user', content: 'first append: its transaction is not named' });
    });
    const named = sent.filter((statement) => statement.name !== undefined);
    expect(named.map((statement) => statement.text.slice(0, 16))).toEqual([
      'WITH bumped AS (',
      'WITH bumped AS (',
      'WITH b AS (SELEC',
      'WITH b AS (SELEC',
      'UPDATE agent_thr',
      // A first append: its statement finds no thread, then the store's own transaction upserts it and reads its tombstone.
      'WITH bumped AS (',
      'WITH upserted AS',
      'SELECT 1 FROM ag',
    ]);
    expect(named[0].name).toMatch(/^nas_[0-9a-f]{24}$/);
    expect(named[1].name).toBe(named[0].name);
    expect(new Set(named.map((statement) => statement.name)).size).toBe(6);
    const transaction = sent.slice(sent.findIndex((statement) => statement.text === 'BEGIN'));
    expect(transaction.map((statement) => [statement.text.slice(0, 16), statement.name === undefined ? 'unnamed' : 'named'])).toEqual([
      ['BEGIN', 'unnamed'],
      ['WITH upserted AS', 'named'],
      ['SELECT 1 FROM ag', 'named'],
      ['COMMIT', 'unnamed'],
    ]);
    expect((await store.messages.getHistory('named')).map((message) => message.content)).toEqual(['creates the thread in a transaction', 'one', 'two']);
  });

  test('a connection that lost its names gets the statement unnamed, once, and the store names nothing after', async () => {
    store = await storeApp({ url: await POSTGRESQL.freshUrl(), migrate: true, pool: { max: 1 } });
    await store.messages.append('lost', { role: 'user', content: 'a' });
    await store.messages.append('lost', { role: 'assistant', content: 'b' });
    // The pool's one connection forgets its statements; node-postgres still takes them for prepared.
    await store.db.client.$executeRawUnsafe('DEALLOCATE ALL');
    const sent = await namesSent(async () => {
      expect((await store.messages.append('lost', { role: 'user', content: 'c' })).seq).toBe(3);
      await store.messages.append('lost', { role: 'assistant', content: 'd' });
    });
    expect(sent.map((statement) => [statement.text.slice(0, 16), statement.name === undefined ? 'unnamed' : 'named'])).toEqual([
      ['WITH bumped AS (', 'named'],
      ['WITH bumped AS (', 'unnamed'],
      ['WITH bumped AS (', 'unnamed'],
    ]);
    expect((await store.messages.getTranscript('lost')).map((message) => [message.seq, message.content])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
    ]);
  });

  test("a name lost inside the store's own transaction rolls it back and runs it again unnamed: the thread is created once", async () => {
    store = await storeApp({ url: await POSTGRESQL.freshUrl(), migrate: true, pool: { max: 1 } });
    const first = await namesSent(() => store.messages.append('one', { role: 'user', content: 'a' }));
    const upsert = first.find((statement) => statement.text.startsWith('WITH upserted AS'))!;
    expect(upsert.name).toBeDefined();
    // The connection forgets the upsert's name only: the statement before the transaction keeps its own.
    await store.db.client.$executeRawUnsafe(`DEALLOCATE "${upsert.name}"`);
    const sent = await namesSent(() => store.messages.append('two', { role: 'user', content: 'b' }));
    expect(sent.map((statement) => [statement.text.slice(0, 16), statement.name === undefined ? 'unnamed' : 'named'])).toEqual([
      ['WITH bumped AS (', 'named'],
      ['BEGIN', 'unnamed'],
      ['WITH upserted AS', 'named'],
      ['ROLLBACK', 'unnamed'],
      ['BEGIN', 'unnamed'],
      ['WITH upserted AS', 'unnamed'],
      ['SELECT 1 FROM ag', 'unnamed'],
      ['COMMIT', 'unnamed'],
    ]);
    expect((await store.messages.getTranscript('two')).map((message) => [message.seq, message.content])).toEqual([[1, 'b']]);
    expect((await store.sessions.get('two'))?.id).toBe('two');
  });

  test("on the app's own PrismaClient, the store names nothing: the client is the app's", async () => {
    store = await storeThroughPrisma(POSTGRESQL);
    await store.messages.append('own-client', { role: 'user', content: 'a' });
    const sent = await namesSent(async () => {
      await store.messages.append('own-client', { role: 'assistant', content: 'b' });
      await store.messages.getHistory('own-client');
    });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((statement) => statement.name === undefined)).toBe(true);
  });
});
