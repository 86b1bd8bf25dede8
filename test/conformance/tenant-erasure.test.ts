// StoreMaintenance.eraseTenant on SQLite, PostgreSQL and MariaDB: a tenant with rows in every
// table of the schema (sessions, subsessions, messages, events, compactions, repairs, a deleted
// session's tombstone, a chat, a LangGraph thread with values and pending writes, Claude Agent SDK
// and OpenAI Agents sessions) is erased so that a scan of every table (listed from the catalog)
// and every cell finds nothing of it, while another tenant's rows and unscoped rows stay byte for byte.
import { createHash } from 'node:crypto';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { StoreNotFoundError, StoreValidationError, type ChatStore, type MessageStore, type SessionStore, type TranscriptStore } from '../../src/index.js';
import type { ClaudeSessionStore } from '../../src/integrations/claude-agent-sdk/index.js';
import type { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';
import type { OpenAIAgentsSessions } from '../../src/integrations/openai-agents/index.js';
import { dumpOf, findIn, maintenanceApp, tablesOf, type Dump, type MaintenanceApp } from '../support/maintenance.js';
import { eachDatabaseBackend, storeOn } from '../support/openers.js';

/** The digests LangGraphCheckpoints keys a tenant's thread by (see langgraph-checkpoints.ts). */
const digest = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

interface Scope {
  messages: MessageStore;
  transcripts: TranscriptStore;
  sessions: SessionStore;
  chats: ChatStore;
  checkpointer: LangGraphCheckpointer;
  claude: ClaudeSessionStore;
  openai: OpenAIAgentsSessions;
}

/** Something in every table, each id, title, metadata and content carrying `mark`. Returns the LangGraph digests. */
async function seed(scope: Scope, mark: string, tenantId: string | null): Promise<string[]> {
  const root = await scope.sessions.create({ id: `${mark}-root`, title: `${mark} title`, metadata: { note: mark } });
  const child = await scope.sessions.create({ id: `${mark}-child`, parentId: root, title: `${mark} child`, metadata: { note: mark } });
  await scope.sessions.create({ id: `${mark}-grandchild`, parentId: child });
  for (const id of [root, child, `${mark}-grandchild`]) {
    await scope.messages.appendMany(id, [
      { role: 'user', content: `${mark} hello`, id: `${mark}-${id}-m1`, metadata: { note: mark } },
      { role: 'assistant', content: [{ type: 'text', text: `${mark} answer` }] },
    ]);
    await scope.sessions.append(id, { type: `${mark}.event`, data: { note: mark } });
    await scope.messages.appendCompaction(id, [{ role: 'user', content: `${mark} summary` }], 2, 0);
    await scope.messages.appendRepair(id, { role: 'user', content: `${mark} repair` }, [{ role: 'user', content: `${mark} balanced` }], 1);
  }
  const gone = await scope.sessions.create({ id: `${mark}-deleted`, title: mark });
  await scope.transcripts.deleteTranscript(gone);
  // A tenant's stores create sessions only by create (and import): the chat's is created first.
  await scope.sessions.create({ id: `${mark}-chat` });
  await scope.chats.saveChat(`${mark}-chat`, [{ id: `${mark}-c1`, role: 'user', parts: [{ type: 'text', text: `${mark} chat` }] }]);

  const threadId = `${mark}-thread`;
  const digests = [digest([tenantId, threadId])];
  for (const checkpoint_ns of ['', `${mark}-ns`]) {
    const checkpoint = { ...emptyCheckpoint(), channel_values: { log: [`${mark} value`] }, channel_versions: { log: 1 } };
    const config = await scope.checkpointer.put(
      { configurable: { thread_id: threadId, checkpoint_ns } },
      checkpoint,
      { source: 'update', step: -1, parents: {} },
      { log: 1 },
    );
    await scope.checkpointer.putWrites(config, [['log', `${mark} pending`]], `${mark}-task`);
    digests.push(digest([tenantId, threadId, checkpoint_ns]));
  }
  // A pending write whose checkpoint never landed: LangGraph does not wait for its put.
  const orphan = `${mark}-orphan-thread`;
  await scope.checkpointer.putWrites(
    { configurable: { thread_id: orphan, checkpoint_ns: '', checkpoint_id: `${mark}-never-put` } },
    [['log', `${mark} orphan`]],
    `${mark}-orphan-task`,
  );
  digests.push(digest([tenantId, orphan]), digest([tenantId, orphan, '']));

  const key = { projectKey: `${mark}-project`, sessionId: `${mark}-claude` };
  await scope.claude.append(key, [{ type: 'user', uuid: `${mark}-u1`, message: { content: mark } }]);
  await scope.claude.append({ ...key, subpath: `${mark}-agent` }, [{ type: 'assistant', uuid: `${mark}-u2`, message: { content: mark } }]);
  await scope.openai.forSession(`${mark}-openai`).addItems([{ role: 'user', content: `${mark} item` }]);
  return digests;
}

eachDatabaseBackend((backend) => {
  const store = storeOn(backend);
  let ops: MaintenanceApp;
  beforeAll(async () => {
    ops = await maintenanceApp(store.url);
  });
  afterAll(() => ops?.close());

  const scoped = (tenantId: string): Scope => {
    const { messages, transcripts, sessions, chats } = store.tenants.forTenant(tenantId);
    return {
      messages,
      transcripts,
      sessions,
      chats,
      checkpointer: ops.checkpointer.forTenant(tenantId),
      claude: ops.claude.forTenant(tenantId),
      openai: ops.openai.forTenant(tenantId),
    };
  };
  const unscoped = (): Scope => ({
    messages: store.messages,
    transcripts: store.transcripts,
    sessions: store.sessions,
    chats: store.chats,
    checkpointer: ops.checkpointer,
    claude: ops.claude,
    openai: ops.openai,
  });

  test('erases every row of the tenant in every table, and changes nothing else', async () => {
    const tenant = 'tenant-zq7erase';
    const mark = 'zq7erase';
    const digests = await seed(scoped(tenant), mark, tenant);
    await seed(scoped('tenant-kept'), 'keptother', 'tenant-kept');
    await seed(unscoped(), 'keptunscoped', null);
    const ids = (await ops.db.client.agentThread.findMany({ where: { tenantId: tenant }, select: { id: true } })).map((row) => row.id);
    const needles = [mark, tenant, ...ids, ...digests];

    // The seed reaches every table of the schema but the migrations' own: a table added later fails here until it is seeded.
    const tables = await tablesOf(ops.db);
    const holding = new Set((await findIn(ops.db, needles)).map((hit) => hit.slice(0, hit.indexOf(':'))));
    expect([...holding].sort()).toEqual(tables.filter((table) => table.startsWith('agent_')));

    const before = await dumpOf(ops.db);
    const erased = await ops.maintenance.eraseTenant(tenant, { batchSize: 2 });

    expect(await findIn(ops.db, needles)).toEqual([]);
    // 3 sessions of the tree, the deleted one's tombstone, the chat, 2 Claude transcripts (main and subpath), the OpenAI session.
    // And the LangGraph thread's two checkpoints (with their values and writes), and the write without a checkpoint.
    expect(erased).toEqual({ sessions: 7, tombstones: 8, checkpoints: 2, pendingWrites: 1 });
    const hasNeedle = (row: string) => needles.some((needle) => row.includes(needle) || row.includes(Buffer.from(needle).toString('hex')));
    const kept: Dump = Object.fromEntries(Object.entries(before).map(([table, rows]) => [table, rows.filter((row) => !hasNeedle(row))]));
    expect(await dumpOf(ops.db)).toEqual(kept);

    // Erasing again finds nothing; the tenant starts empty.
    expect(await ops.maintenance.eraseTenant(tenant)).toEqual({ sessions: 0, tombstones: 0, checkpoints: 0, pendingWrites: 0 });
    const again = scoped(tenant);
    expect((await again.sessions.list()).sessions).toEqual([]);
    expect(await again.checkpointer.getTuple({ configurable: { thread_id: `${mark}-thread` } })).toBeUndefined();
    expect(await again.claude.load({ projectKey: `${mark}-project`, sessionId: `${mark}-claude` })).toBeNull();
    await expect(again.messages.append(`${mark}-root`, { role: 'user', content: 'late' })).rejects.toThrow(StoreNotFoundError);
    expect(await findIn(ops.db, needles)).toEqual([]);
  });

  test('sessions the tenant creates while the erasure runs are erased too', async () => {
    const tenant = 'tenant-busy';
    const stores = scoped(tenant);
    for (let i = 0; i < 20; i++) await stores.sessions.create({ id: `busy-${i}` });
    let stop = false;
    let created = 0;
    const writer = (async () => {
      while (!stop && created < 60) {
        await stores.sessions.create({ id: `busy-late-${created++}` });
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    let first;
    try {
      first = await ops.maintenance.eraseTenant(tenant, { batchSize: 3 });
    } finally {
      stop = true;
      await writer;
    }
    const second = await ops.maintenance.eraseTenant(tenant, { batchSize: 3 });
    expect(first.sessions + second.sessions).toBe(20 + created);
    expect(first.sessions).toBeGreaterThanOrEqual(20);
    expect(await ops.db.client.agentThread.count({ where: { tenantId: tenant } })).toBe(0);
    expect(await ops.db.client.agentTombstone.count({ where: { tenantId: tenant } })).toBe(0);
  });

  test('refuses a bad tenant id or batch size, deleting nothing', async () => {
    await expect(ops.maintenance.eraseTenant('')).rejects.toThrow(StoreValidationError);
    await expect(ops.maintenance.eraseTenant('t', { batchSize: 0 })).rejects.toThrow(StoreValidationError);
    await expect(ops.maintenance.eraseTenant('t', { batchSize: 1001 })).rejects.toThrow(StoreValidationError);
  });
});
