// A database trigger that makes deleting one session fail: a fault injected
// in the middle of a multi-row delete, in each database's own dialect.
// (On MySQL, rows deleted by a cascade fire no triggers: the trigger sits on the deleted table.)
import type { InternalStoreApp } from './store-app.js';

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

export async function injectFailure(store: InternalStoreApp, provider: keyof typeof CREATE, sessionId: string) {
  for (const sql of CREATE[provider](sessionId)) await store.db.client.$executeRawUnsafe(sql);
  return {
    async remove() {
      for (const sql of DROP[provider]) await store.db.client.$executeRawUnsafe(sql);
    },
  };
}
