// TranscriptStore.deleteTranscript when the database fails in the middle of it,
// on SQLite, PostgreSQL and MariaDB: the fault is a trigger injected into the
// database, so this test reads the tables themselves. (The rest of the
// TranscriptStore contract is in test/conformance/transcript-store.test.ts.)
import { StoreDatabaseError } from '../../src/index.js';
import { eachDatabase } from '../support/databases.js';
import { injectFailure } from '../support/failures.js';
import { storeFor } from '../support/store-app.js';
import { threeLevels } from '../../src/testing/trees.js';

eachDatabase((database) => {
  const store = storeFor(database);

  /** Every row any table holds for these sessions. */
  async function rowsOf(ids: string[]) {
    const { client } = store.db;
    return {
      threads: await client.agentThread.count({ where: { id: { in: ids } } }),
      messages: await client.agentMessage.count({ where: { threadId: { in: ids } } }),
      boundaries: await client.agentBoundary.count({ where: { threadId: { in: ids } } }),
      repairs: await client.agentRepair.count({ where: { threadId: { in: ids } } }),
      edges: await client.agentSubsession.count({ where: { OR: [{ parentId: { in: ids } }, { childId: { in: ids } }] } }),
    };
  }

  test('a failure in the middle of the delete leaves the whole tree in place', async () => {
    const tree = await threeLevels(store, 'failing');
    const before = await rowsOf(Object.values(tree));
    // The database refuses to delete one leaf, after the tombstones are written and in the middle of the delete.
    const trigger = await injectFailure(store, database.provider, tree.leaf2);
    try {
      await expect(store.transcripts.deleteTranscript(tree.root)).rejects.toThrow(StoreDatabaseError);
    } finally {
      await trigger.remove();
    }
    expect(await rowsOf(Object.values(tree))).toEqual(before);
    expect(await store.db.client.agentTombstone.count({ where: { id: { in: Object.values(tree) } } })).toBe(0);
    expect(await store.transcripts.getSubsessions(tree.mid1)).toEqual([tree.leaf1, tree.leaf2]);
  });
});
