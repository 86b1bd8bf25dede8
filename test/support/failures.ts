// Database triggers that make one write fail: faults injected in the middle of
// a multi-row delete or insert, in each database's own dialect.
// (On MySQL, rows deleted by a cascade fire no triggers: the trigger sits on the deleted table.)
import Database from 'better-sqlite3';
import mariadb from 'mariadb';
import pg from 'pg';
import type { InternalStoreApp } from './store-app.js';

type Provider = 'sqlite' | 'postgresql' | 'mysql';

const CREATE = {
  sqlite: (id: string) => [
    `CREATE TRIGGER injected_failure BEFORE DELETE ON agent_thread WHEN OLD.id = '${id}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  ],
  postgresql: (id: string) => [
    `CREATE FUNCTION injected_failure() RETURNS trigger AS $$ BEGIN IF OLD.id = '${id}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN OLD; END $$ LANGUAGE plpgsql`,
    'CREATE TRIGGER injected_failure BEFORE DELETE ON agent_thread FOR EACH ROW EXECUTE FUNCTION injected_failure()',
  ],
  mysql: (id: string) => [
    `CREATE TRIGGER injected_failure BEFORE DELETE ON agent_thread FOR EACH ROW BEGIN IF OLD.id = '${id}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
  ],
};

const DROP = {
  sqlite: ['DROP TRIGGER injected_failure'],
  postgresql: ['DROP TRIGGER injected_failure ON agent_thread', 'DROP FUNCTION injected_failure()'],
  mysql: ['DROP TRIGGER injected_failure'],
};

export async function injectFailure(store: InternalStoreApp, provider: Provider, sessionId: string) {
  for (const sql of CREATE[provider](sessionId)) await store.db.client.$executeRawUnsafe(sql);
  return {
    async remove() {
      for (const sql of DROP[provider]) await store.db.client.$executeRawUnsafe(sql);
    },
  };
}

// The database refuses to insert a message (or event) whose message_id is the given one.
const CREATE_INSERT = {
  sqlite: (messageId: string) => [
    `CREATE TRIGGER refused_message BEFORE INSERT ON agent_message WHEN NEW.message_id = '${messageId}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  ],
  postgresql: (messageId: string) => [
    `CREATE FUNCTION refused_message() RETURNS trigger AS $$ BEGIN IF NEW.message_id = '${messageId}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    'CREATE TRIGGER refused_message BEFORE INSERT ON agent_message FOR EACH ROW EXECUTE FUNCTION refused_message()',
  ],
  mysql: (messageId: string) => [
    `CREATE TRIGGER refused_message BEFORE INSERT ON agent_message FOR EACH ROW BEGIN IF NEW.message_id = '${messageId}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
  ],
};

const DROP_INSERT = {
  sqlite: ['DROP TRIGGER refused_message'],
  postgresql: ['DROP TRIGGER refused_message ON agent_message', 'DROP FUNCTION refused_message()'],
  mysql: ['DROP TRIGGER refused_message'],
};

/**
 * Makes the database of `url` refuse any message with the id `messageId`, on a
 * connection of its own, so that the store is used through its public API only.
 */
export async function refuseMessage(url: string, messageId: string) {
  const provider: Provider = url.startsWith('file:') ? 'sqlite' : url.startsWith('postgres') ? 'postgresql' : 'mysql';
  await runOn(url, CREATE_INSERT[provider](messageId));
  return { remove: () => runOn(url, DROP_INSERT[provider]) };
}

async function runOn(url: string, statements: string[]): Promise<void> {
  if (url.startsWith('file:')) {
    const db = new Database(url.slice('file:'.length));
    try {
      for (const sql of statements) db.exec(sql);
    } finally {
      db.close();
    }
  } else if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));
    try {
      for (const sql of statements) await connection.query(sql);
    } finally {
      await connection.end();
    }
  }
}
