// Database triggers that make one write fail: faults injected in the middle of
// a multi-row delete or insert, in each database's own dialect.
// (On MySQL, rows deleted by a cascade fire no triggers: the trigger sits on the deleted table.)
import { runSql } from './databases.js';
import type { InternalStoreApp } from './store-app.js';

type Provider = 'sqlite' | 'postgresql' | 'mysql';

/** A trigger `name` that fails a row's `event` on `table` with "injected failure" when `condition` (on OLD or NEW) holds. */
interface Trigger {
  name: string;
  event: 'DELETE' | 'INSERT';
  table: string;
  condition: string;
}

const CREATE: Record<Provider, (trigger: Trigger) => string[]> = {
  sqlite: ({ name, event, table, condition }) => [
    `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} WHEN ${condition} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  ],
  postgresql: ({ name, event, table, condition }) => [
    `CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF ${condition} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN COALESCE(NEW, OLD); END $$ LANGUAGE plpgsql`,
    `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ],
  mysql: ({ name, event, table, condition }) => [
    `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW BEGIN IF ${condition} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
  ],
};

const DROP: Record<Provider, (trigger: Trigger) => string[]> = {
  sqlite: ({ name }) => [`DROP TRIGGER ${name}`],
  postgresql: ({ name, table }) => [`DROP TRIGGER ${name} ON ${table}`, `DROP FUNCTION ${name}()`],
  mysql: ({ name }) => [`DROP TRIGGER ${name}`],
};

/** The database refuses to delete the session `sessionId`. */
export function injectFailure(store: InternalStoreApp, provider: Provider, sessionId: string) {
  return refuseDelete(store, provider, 'agent_thread', `OLD.id = '${sessionId}'`);
}

/** The database refuses to delete a row of `table` for which `condition` (on OLD) holds. */
export async function refuseDelete(store: InternalStoreApp, provider: Provider, table: string, condition: string) {
  const trigger: Trigger = { name: 'injected_failure', event: 'DELETE', table, condition };
  for (const sql of CREATE[provider](trigger)) await store.db.client.$executeRawUnsafe(sql);
  return {
    async remove() {
      for (const sql of DROP[provider](trigger)) await store.db.client.$executeRawUnsafe(sql);
    },
  };
}

/**
 * The database of `url` refuses to insert a message (or event) whose id is
 * `messageId`; the trigger is made on a connection of its own, so that the
 * store is used through its public API only.
 */
export async function refuseMessage(url: string, messageId: string) {
  const provider: Provider = url.startsWith('file:') ? 'sqlite' : url.startsWith('postgres') ? 'postgresql' : 'mysql';
  const trigger: Trigger = { name: 'refused_message', event: 'INSERT', table: 'agent_message', condition: `NEW.message_id = '${messageId}'` };
  await runSql(url, CREATE[provider](trigger));
  return { remove: () => runSql(url, DROP[provider](trigger)) };
}
