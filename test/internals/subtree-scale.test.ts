// deleteTranscript of deep (1,000 levels) and wide (10,000 children) trees on
// every database: it works, and the number of statements does not grow with the tree.
import { PrismaMessageStore } from '../../src/stores/messages/message-store.service.js';
import { PrismaTranscriptStore } from '../../src/stores/transcripts/transcript-store.service.js';
import { StoreNotFoundError } from '../../src/index.js';
import { loggedDatabase, type LoggedDatabase } from '../support/clients.js';
import { eachDatabase } from '../support/databases.js';

eachDatabase((database) => {
  let logged: LoggedDatabase;
  let transcripts: PrismaTranscriptStore;

  beforeAll(async () => {
    logged = await loggedDatabase(await database.freshUrl());
    transcripts = new PrismaTranscriptStore(logged.db, new PrismaMessageStore(logged.db));
  });
  afterAll(() => logged.close());

  /** Writes the tree's rows directly: building it is not what is measured. */
  async function plant(edges: [parent: string, child: string][], root: string) {
    const ids = [root, ...edges.map(([, child]) => child)];
    const { client } = logged;
    await client.agentThread.createMany({ data: ids.map((id) => ({ id, lastSeq: 1 })) });
    await client.agentSubsession.createMany({ data: edges.map(([parentId, childId]) => ({ parentId, childId })) });
    await client.agentMessage.createMany({ data: ids.map((threadId) => ({ threadId, seq: 1, role: 'user', content: 'x' })) });
    return ids;
  }

  async function countedDelete(root: string): Promise<{ deleted: number; statements: number }> {
    logged.statements.length = 0;
    const deleted = await transcripts.deleteTranscript(root);
    return { deleted, statements: logged.statements.length };
  }

  test('a chain 1,000 levels deep is deleted in one transaction of a few statements', async () => {
    const edges = Array.from({ length: 999 }, (_, i): [string, string] => [`deep-${i}`, `deep-${i + 1}`]);
    const ids = await plant(edges, 'deep-0');
    const result = await countedDelete('deep-0');
    expect(result.deleted).toBe(1000);
    expect(result.statements).toBeLessThanOrEqual(8);
    expect(await logged.client.agentThread.count()).toBe(0);
    expect(await logged.client.agentMessage.count()).toBe(0);
    expect(await logged.client.agentTombstone.count()).toBe(ids.length);
    await expect(transcripts.appendMessage('deep-999', { role: 'user', content: 'late' })).rejects.toThrow(StoreNotFoundError);
  });

  test('a root with 10,000 children is deleted with as few statements', async () => {
    const edges = Array.from({ length: 10_000 }, (_, i): [string, string] => ['wide', `wide-${i}`]);
    await plant(edges, 'wide');
    const result = await countedDelete('wide');
    expect(result.deleted).toBe(10_001);
    expect(result.statements).toBeLessThanOrEqual(8);
    expect(await logged.client.agentThread.count()).toBe(0);
    expect(await logged.client.agentSubsession.count()).toBe(0);
    expect(await logged.client.agentMessage.count()).toBe(0);
  });
});
