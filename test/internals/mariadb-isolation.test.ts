// The MariaDB fast paths hold whatever isolation level the server defaults to:
// on a server of its own set to READ COMMITTED, a delete that commits while an
// append waits for the thread's row still stops the append, and nothing comes back.
import mariadb from 'mariadb';
import { StoreNotFoundError } from '../../src/index.js';
import { describeWith } from '../support/databases.js';
import { hasMariaDbBinaries, startMariaDb, stopServer, type RunningServer } from '../support/test-servers.js';
import { storeApp } from '../support/store-app.js';

const connect = (url: string) => mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));

describeWith(hasMariaDbBinaries(), 'no MariaDB binaries')('MariaDB at READ COMMITTED by default', () => {
  let server: RunningServer | undefined;
  let url: string;
  beforeAll(async () => {
    server = await startMariaDb();
    const admin = await connect(server!.url);
    try {
      await admin.query("SET GLOBAL tx_isolation = 'READ-COMMITTED'");
      await admin.query('CREATE DATABASE isolation CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    } finally {
      await admin.end();
    }
    const parsed = new URL(server!.url);
    parsed.pathname = '/isolation';
    url = parsed.toString();
  }, 60_000);
  afterAll(async () => {
    if (server) await stopServer(server);
  });

  test('a delete that commits while an unscoped append waits for the row: StoreNotFoundError, and the thread stays deleted', async () => {
    const app = await storeApp({ url });
    const deleter = await connect(url);
    try {
      await app.messages.append('x', { role: 'user', content: 'first' });
      // deleteTranscript's statements, held open: the thread's row locked, its tombstone written, the row deleted.
      await deleter.beginTransaction();
      await deleter.query("SELECT id FROM agent_thread WHERE id = 'x' FOR UPDATE");
      await deleter.query("INSERT INTO agent_tombstone (id, deleted_at) VALUES ('x', NOW(3))");
      await deleter.query("DELETE FROM agent_thread WHERE id = 'x'");
      const append = app.messages.append('x', { role: 'user', content: 'after the delete' }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleter.commit();
      expect(await append).toBeInstanceOf(StoreNotFoundError);
      const [state] = (await deleter.query(
        "SELECT (SELECT COUNT(*) FROM agent_thread WHERE id = 'x') AS threads, (SELECT COUNT(*) FROM agent_tombstone WHERE id = 'x') AS tombstones, (SELECT COUNT(*) FROM agent_message WHERE thread_id = 'x') AS messages",
      )) as Record<string, bigint>[];
      expect(Object.fromEntries(Object.entries(state).map(([key, value]) => [key, Number(value)]))).toEqual({ threads: 0, tombstones: 1, messages: 0 });
    } finally {
      await deleter.end();
      await app.close();
    }
  });
});
