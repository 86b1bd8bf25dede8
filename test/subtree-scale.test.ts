// deleteTranscript of deep (1,000 levels) and wide (10,000 children) trees: it
// works, and the number of statements does not grow with the tree.
import { PrismaClient } from '../src/generated/sqlite/client.js';
import { StoreDatabase } from '../src/data/database.js';
import { DIALECTS } from '../src/data/dialect.js';
import { migrate } from '../src/data/open-database.js';
import type { StoreClient } from '../src/data/store-client.js';
import { PrismaMessageStore } from '../src/message-store.service.js';
import { PrismaTranscriptStore } from '../src/transcript-store.service.js';
import { SerializedSqliteAdapterFactory, StoreNotFoundError } from '../src/index.js';
import { tempSqliteUrl } from './support/store-app.js';

const clientWithQueryEvents = (factory: SerializedSqliteAdapterFactory) =>
  new PrismaClient({ adapter: factory, log: [{ emit: 'event' as const, level: 'query' as const }] });
let client: ReturnType<typeof clientWithQueryEvents>;
let transcripts: PrismaTranscriptStore;
let statements = 0;

beforeAll(async () => {
  const factory = new SerializedSqliteAdapterFactory(tempSqliteUrl());
  await migrate(factory, 'sqlite');
  client = clientWithQueryEvents(factory);
  client.$on('query', () => statements++);
  const db = new StoreDatabase(client as unknown as StoreClient, DIALECTS.sqlite, true);
  transcripts = new PrismaTranscriptStore(db, new PrismaMessageStore(db));
});
afterAll(() => client.$disconnect());

/** Writes the tree's rows directly: building it is not what is measured. */
async function plant(edges: [parent: string, child: string][], root: string) {
  const ids = [root, ...edges.map(([, child]) => child)];
  await client.agentThread.createMany({ data: ids.map((id) => ({ id })) });
  await client.agentSubsession.createMany({ data: edges.map(([parentId, childId]) => ({ parentId, childId })) });
  await client.agentMessage.createMany({ data: ids.map((threadId) => ({ threadId, seq: 1, role: 'user', content: 'x' })) });
  await client.agentThread.updateMany({ where: { id: { in: ids } }, data: { lastSeq: 1 } });
  return ids;
}

async function countedDelete(root: string): Promise<{ deleted: number; statements: number }> {
  statements = 0;
  const deleted = await transcripts.deleteTranscript(root);
  return { deleted, statements };
}

test('a chain 1,000 levels deep is deleted in one transaction of a few statements', async () => {
  const edges = Array.from({ length: 999 }, (_, i): [string, string] => [`deep-${i}`, `deep-${i + 1}`]);
  const ids = await plant(edges, 'deep-0');
  const result = await countedDelete('deep-0');
  expect(result.deleted).toBe(1000);
  expect(result.statements).toBeLessThanOrEqual(6);
  expect(await client.agentThread.count()).toBe(0);
  expect(await client.agentMessage.count()).toBe(0);
  expect(await client.agentTombstone.count()).toBe(ids.length);
  await expect(transcripts.appendMessage('deep-999', { role: 'user', content: 'late' })).rejects.toThrow(StoreNotFoundError);
});

test('a root with 10,000 children is deleted with as few statements', async () => {
  const edges = Array.from({ length: 10_000 }, (_, i): [string, string] => ['wide', `wide-${i}`]);
  await plant(edges, 'wide');
  const result = await countedDelete('wide');
  expect(result.deleted).toBe(10_001);
  expect(result.statements).toBeLessThanOrEqual(6);
  expect(await client.agentThread.count()).toBe(0);
  expect(await client.agentSubsession.count()).toBe(0);
  expect(await client.agentMessage.count()).toBe(0);
});
