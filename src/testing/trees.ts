// A subsession tree with something of every kind in each session, for the tests of subtree deletes.
import type { MessageInput, MessageStore, TranscriptStore } from '../index.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });

/** root -> (mid1 -> leaf1, leaf2), (mid2 -> leaf3); each with messages, a compaction and a repair. */
export async function threeLevels(store: { transcripts: TranscriptStore; messages: MessageStore }, prefix: string) {
  const ids = {
    root: `${prefix}-root`,
    mid1: `${prefix}-mid1`,
    mid2: `${prefix}-mid2`,
    leaf1: `${prefix}-leaf1`,
    leaf2: `${prefix}-leaf2`,
    leaf3: `${prefix}-leaf3`,
  };
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
