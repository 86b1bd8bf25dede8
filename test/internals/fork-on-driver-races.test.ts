// A fork on the driver (fork-on-driver.ts) reads its plan in one statement, and the rest of a log longer
// than that statement's share in pages after it: a source that loses rows in between (a compaction's
// prune, a replaceHistory) is planned again, never forked with a hole or empty; a source deleted
// meanwhile is not forked. The racing writes run on other connections right after the plan's statement,
// through a StoreDatabase whose fast paths hand the fork a statement runner that runs them there. On
// SQLite the fork holds the write lock from its plan to its commit, so nothing can race it.
import type { Run } from '../../src/engine/adapter-statement.js';
import type { StoreDatabase } from '../../src/engine/database.js';
import type { FastPaths } from '../../src/engine/provider-kit.js';
import { forkSession } from '../../src/stores/sessions/session-forks.js';
import { StoreNotFoundError, type MessageInput } from '../../src/index.js';
import { eachDatabase, MARIADB, POSTGRESQL, runSql } from '../support/databases.js';
import { storeFor } from '../support/store-app.js';

const user = (content: string): MessageInput => ({ role: 'user', content });
const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => user(`${prefix}${i}`));

eachDatabase(
  (database) => {
    const store = storeFor(database);

    /** The store's database, each of whose forks runs `race` once, right after its transaction's first statement (the plan); and how many plans were read. */
    function racing(race: () => Promise<unknown>): { db: StoreDatabase; plans: () => number } {
      let raced = false;
      let plans = 0;
      const db = new Proxy(store.db, {
        get(target, key) {
          if (key === 'fastPaths') {
            return async (): Promise<FastPaths | undefined> => {
              const paths = await target.fastPaths();
              if (!paths?.transaction) return paths;
              const transaction = paths.transaction;
              return {
                ...paths,
                transaction: (write, work) => {
                  let first = true;
                  return transaction(write, (run: Run) =>
                    work(async (text, args) => {
                      const rows = await run(text, args);
                      if (first) {
                        first = false;
                        plans++;
                        if (!raced) {
                          raced = true;
                          await race();
                        }
                      }
                      return rows;
                    }),
                  );
                },
              };
            };
          }
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { db, plans: () => plans };
    }

    const contentsOf = async (id: string) => (await store.messages.getHistory(id)).map((message) => message.content);

    test("a source compacted and pruned past the plan's first rows is planned again: the fork holds its history, no hole", async () => {
      const source = await store.sessions.create({ id: 'race-pruned' });
      await store.messages.appendMany(source, numbered('m', 1_200));
      const { db, plans } = racing(async () => {
        await store.messages.appendCompaction(source, [user('summary')], 1_100, 0);
        // A prune's first batch, highest first: the rows between the plan's first 500 and the cut.
        await runSql(store.url, [`DELETE FROM agent_message WHERE thread_id = '${source}' AND seq > 600 AND seq <= 1100`]);
      });
      await forkSession(db, source, { id: 'race-pruned-fork', unansweredToolCalls: 'refuse' });
      expect(plans()).toBe(2);
      const history = await contentsOf(source);
      expect(history).toEqual(['summary', ...Array.from({ length: 100 }, (_, i) => `m${1_100 + i}`)]);
      expect(await contentsOf('race-pruned-fork')).toEqual(history);
    });

    test('a source whose history is replaced after the plan is planned again: the fork is not empty', async () => {
      const source = await store.sessions.create({ id: 'race-replaced' });
      await store.messages.appendMany(source, numbered('old', 600));
      // Its log now starts past the plan's first 500 seqs.
      await store.messages.replaceHistory(source, numbered('kept', 700));
      const { db, plans } = racing(() => store.messages.replaceHistory(source, [user('new a'), user('new b')]));
      await forkSession(db, source, { id: 'race-replaced-fork', unansweredToolCalls: 'refuse' });
      expect(plans()).toBe(2);
      expect(await contentsOf('race-replaced-fork')).toEqual(['new a', 'new b']);
    });

    test('a source deleted after the plan is not forked: not found, and the fork id stays free', async () => {
      const source = await store.sessions.create({ id: 'race-deleted', tenantId: 'racer' });
      await store.messages.appendMany(source, numbered('m', 3));
      const { db } = racing(() => store.transcripts.deleteTranscript(source));
      await expect(forkSession(db, source, { id: 'race-deleted-fork', unansweredToolCalls: 'refuse' }, 'racer')).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get('race-deleted-fork')).toBeNull();
    });
  },
  [POSTGRESQL, MARIADB],
);
