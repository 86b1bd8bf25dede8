// TranscriptStore.deleteTranscript when the database fails in the middle of it,
// on SQLite, PostgreSQL and MariaDB: the fault is a trigger injected into the
// database, so this test reads the tables themselves. (The rest of the
// TranscriptStore contract is in test/conformance/transcript-store.test.ts.)
import { StoreDatabaseError, type MessageInput } from '../../src/index.js';
import { eachDatabase } from '../support/databases.js';
import { injectFailure } from '../support/failures.js';
import { storeFor } from '../support/store-app.js';

eachDatabase((database) => {
  const store = storeFor(database);

  const user = (text: string): MessageInput => ({ role: 'user', content: text });

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

  /** root -> (mid1 -> leaf1, leaf2), (mid2 -> leaf3); each with messages, a compaction and a repair. */
  async function threeLevels(prefix: string) {
    const ids = { root: `${prefix}-root`, mid1: `${prefix}-mid1`, mid2: `${prefix}-mid2`, leaf1: `${prefix}-leaf1`, leaf2: `${prefix}-leaf2`, leaf3: `${prefix}-leaf3` };
    await store.transcripts.addSubsession(ids.root, ids.mid1);
    await store.transcripts.addSubsession(ids.root, ids.mid2);
    await store.transcripts.addSubsession(ids.mid1, ids.leaf1);
    await store.transcripts.addSubsession(ids.mid1, ids.leaf2);
    await store.transcripts.addSubsession(ids.mid2, ids.leaf3);
    for (const id of Object.values(ids)) {
      await store.messages.appendMany(id, [user('a'), user('b'), user('c')]);
      await store.messages.appendCompaction(id, [user('summary')], 2, 0);
      await store.messages.appendRepair(id, user('repair'), [user('balanced')], 1);
    }
    return ids;
  }

  test('a failure in the middle of the delete leaves the whole tree in place', async () => {
    const tree = await threeLevels('failing');
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
