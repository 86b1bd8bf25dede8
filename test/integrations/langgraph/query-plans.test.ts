// LangGraphCheckpointer's reads on SQLite search the tables' keys (which lead with the
// thread's) and never scan a table, however long the thread: a step's cost does not grow with it.
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { TASKS, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { ReadPlan } from '../../../src/engine/adapter-statement.js';
import { LangGraphCheckpoints } from '../../../src/integrations/langgraph/langgraph-checkpoints.js';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { storeApp, type InternalStoreApp } from '../../support/store-app.js';
import { tempSqliteUrl } from '../../support/databases.js';

let store: InternalStoreApp;
let url: string;
beforeAll(async () => {
  url = tempSqliteUrl();
  store = await storeApp({ url });
});
afterAll(() => store.close());

/** Runs `plan` on a connection of its own, with the query plan of each statement it ran. */
function plansOf<T>(plan: ReadPlan<T>): { result: T; plans: string[] } {
  const db = new Database(url.slice('file:'.length), { readonly: true });
  try {
    const plans: string[] = [];
    let step = plan.next();
    while (!step.done) {
      const { text, args } = step.value;
      plans.push((db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...args) as { detail: string }[]).map((row) => row.detail).join('\n'));
      step = plan.next(
        db
          .prepare(text)
          .raw(true)
          .all(...args) as unknown[][],
      );
    }
    return { result: step.value, plans };
  } finally {
    db.close();
  }
}

test("getTuple's and a thread's list's statements search the keys; none scans a table", async () => {
  const saver = new LangGraphCheckpointer(store.integration);
  const meta = { source: 'loop' as const, step: 0, parents: {} };
  for (const threadId of ['other', 'planned']) {
    let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
    for (let i = 1; i <= 30; i++) {
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { messages: [i], instructions: 'x' },
        channel_versions: { messages: i, instructions: 1 },
      };
      config = await saver.put(config, checkpoint, meta, i === 1 ? { messages: i, instructions: 1 } : { messages: i });
      await saver.putWrites(
        config,
        [
          ['messages', i],
          [TASKS, i],
        ],
        `task-${i}`,
      );
    }
  }
  const plans = new LangGraphCheckpoints(store.integration, TASKS).plans;
  const key = { threadId: 'planned', checkpointNs: '' };
  const tuple = plansOf(plans.tuple(key));
  expect(tuple.result?.blobs).toHaveLength(2);
  expect(tuple.result?.writes).toHaveLength(2);
  expect(tuple.result?.sends).toHaveLength(1);
  const listed = [
    plansOf(plans.checkpoints({ threadId: 'planned' }, 5)),
    plansOf(plans.checkpoints({ threadId: 'planned', checkpointNs: '', before: tuple.result!.row.checkpointId }, 5)),
  ];
  expect(listed.map(({ result }) => result.length)).toEqual([5, 5]);

  const all = [...tuple.plans, ...listed.flatMap(({ plans }) => plans)];
  expect(all).toHaveLength(5);
  for (const plan of all) {
    // A thread's rows are a range of each key; its writes, of (lane, checkpoint_id).
    expect(plan).toMatch(
      /SEARCH agent_lg_(checkpoint|blob) USING (PRIMARY KEY|INDEX sqlite_autoindex_agent_lg_\w+) \(thread_key=\?|SEARCH agent_lg_write USING (PRIMARY KEY|INDEX sqlite_autoindex_agent_lg_write_1) \(lane=\? AND checkpoint_id=\?/,
    );
    expect(plan).not.toMatch(/\bSCAN agent_/);
  }
});
