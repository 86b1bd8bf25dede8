// The fast paths of each database kit: appends, history reads, counts and
// session lists skip Prisma's transactions, and agree with the full path.
import { jest } from '@jest/globals';
import { StoreDatabase } from '../../src/engine/database.js';
import type { FastPaths } from '../../src/engine/provider-kit.js';
import { StoreConflictError, StoreNotFoundError, StoreValidationError, type Message, type MessageInput, type MessageStore } from '../../src/index.js';
import { PrismaMessageStore } from '../../src/stores/messages/message-store.service.js';
import { PrismaSessionStore } from '../../src/stores/sessions/session-store.service.js';
import Database from 'better-sqlite3';
import mariadb from 'mariadb';
import pg from 'pg';
import { SQL as MYSQL } from '../../src/databases/mysql/sql.js';
import { SQL as POSTGRES_SQL } from '../../src/databases/postgresql/sql.js';
import { SQL as SQLITE_SQL } from '../../src/databases/sqlite/sql.js';
import { eachDatabase } from '../support/databases.js';
import { storeFor } from '../support/store-app.js';

/** How many statements `work` ran through node-postgres, or better-sqlite3 in this process. */
async function statementsSent(provider: 'sqlite' | 'postgresql', work: () => Promise<unknown>): Promise<number> {
  let sent = 0;
  const restores: (() => void)[] = [];
  const count = (owner: object, method: string) => {
    const methods = owner as Record<string, (...args: unknown[]) => unknown>;
    const original = methods[method];
    methods[method] = function (this: unknown, ...args: unknown[]) {
      sent++;
      return original.apply(this, args);
    };
    restores.push(() => (methods[method] = original));
  };
  if (provider === 'postgresql') count(pg.Client.prototype, 'query');
  else {
    const probe = new Database(':memory:');
    const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as object;
    probe.close();
    for (const method of ['run', 'get', 'all', 'iterate']) count(statement, method);
    count(Database.prototype, 'exec');
  }
  try {
    await work();
    return sent;
  } finally {
    for (const restore of restores) restore();
  }
}

eachDatabase((database) => {
  const store = storeFor(database);
  let paths: FastPaths;
  beforeAll(async () => {
    paths = (await store.db.fastPaths())!;
  });
  const fast = () => paths;
  /** The same database through the full path only, as a store on a caller's own client runs. */
  const fullPath = () => new StoreDatabase(store.db.client, store.db.kit, {});

  let n = 0;
  const unique = (name = 't') => `${name}-${++n}`;
  const message = (text: string, extra: Partial<Message> = {}): Message =>
    ({ role: 'user', content: text, createdAt: new Date('2026-11-29T10:00:00.123Z'), ...extra }) as Message;
  const lastSeqOf = async (id: string) => (await store.db.client.agentThread.findUnique({ where: { id }, select: { lastSeq: true } }))?.lastSeq;

  test('scoped, a thread that does not exist gets nothing written, and no row', async () => {
    const id = unique();
    expect(await fast().append(id, [message('a')], new Date(), 'acme')).toBeNull();
    expect(await store.db.client.agentThread.findUnique({ where: { id } })).toBeNull();
  });

  test('unscoped, a thread that does not exist is created with the messages', async () => {
    const id = unique();
    expect(await fast().append(id, [message('a'), message('b')], new Date(), undefined)).toBe(2);
    expect(await lastSeqOf(id)).toBe(2);
    expect((await store.messages.getTranscript(id)).map((m) => [m.seq, m.content])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(await store.sessions.get(id)).toMatchObject({ id, tenantId: null, title: null, parentId: null });
  });

  test('an existing thread gets the next sequence numbers, and rows equal to what the full path writes', async () => {
    const id = unique();
    const rich: MessageInput = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'ünïcode ✈️', n: [1, 2.5, null, true] } }],
      id: 'm-1',
      metadata: { model: 'x', nested: { deep: ['a'] } },
      createdAt: '2026-11-29T10:00:00.123Z',
    };
    const [viaFullPath] = await store.messages.appendMany(unique('full'), [rich]);
    await store.messages.append(id, { role: 'user', content: 'first' });
    const last = await fast().append(id, [message('plain'), { ...viaFullPath, seq: undefined } as unknown as Message], new Date(), undefined);
    expect(last).toBe(3);
    const transcript = await store.messages.getTranscript(id);
    expect(transcript.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(transcript[1]).toEqual({ seq: 2, ...message('plain') });
    const { seq: _seq, ...written } = transcript[2];
    const { seq: _fullSeq, ...expected } = viaFullPath;
    expect(written).toEqual(expected);
    expect(await lastSeqOf(id)).toBe(3);
  });

  test("another tenant's thread, or a deleted one, gets nothing written", async () => {
    const id = await store.sessions.create({ id: unique(), tenantId: 'acme' });
    await store.messages.append(id, { role: 'user', content: 'a' });
    expect(await fast().append(id, [message('b')], new Date(), 'globex')).toBeNull();
    expect(await fast().append(id, [message('b')], new Date(), 'acme')).toBe(2);
    expect(await lastSeqOf(id)).toBe(2);
    await store.transcripts.deleteTranscript(id);
    expect(await fast().append(id, [message('c')], new Date(), 'acme')).toBeNull();
    await expect(fast().append(id, [message('c')], new Date(), undefined)).rejects.toThrow(StoreNotFoundError);
    expect(await store.db.client.agentThread.findUnique({ where: { id } })).toBeNull();
  });

  test('concurrent appends to one thread get unique, gapless sequence numbers', async () => {
    const id = unique();
    await store.messages.append(id, { role: 'user', content: 'first' });
    const lasts = await Promise.all(Array.from({ length: 30 }, (_, i) => fast().append(id, [message(`a${i}`), message(`b${i}`)], new Date(), undefined)));
    expect(new Set(lasts).size).toBe(30);
    const seqs = (await store.messages.getTranscript(id)).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
  });

  test('MessageStore takes the append path for every append, the first included', async () => {
    const id = unique();
    const spy = jest.spyOn(fast(), 'append');
    try {
      await store.messages.append(id, { role: 'user', content: 'creates the thread' });
      await store.messages.appendMany(id, [
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ]);
      const results = await Promise.all(spy.mock.results.map((result) => result.value));
      expect(results).toEqual([1, 3]);
    } finally {
      spy.mockRestore();
    }
  });

  test("getHistory and count on the read path, scoped or not, equal the full path's, across compactions, repairs and events", async () => {
    const id = await store.sessions.create({ id: unique(), tenantId: 'acme' });
    const full = new PrismaMessageStore(fullPath());
    const scoped = store.tenants.forTenant('acme').messages;
    const agree = async () => {
      const history = await full.getHistory(id);
      expect(await store.messages.getHistory(id)).toEqual(history);
      expect(await scoped.getHistory(id)).toEqual(history);
      const count = await full.count(id);
      expect(await store.messages.count(id)).toBe(count);
      expect(await scoped.count(id)).toBe(count);
    };
    await agree();
    await store.messages.appendMany(id, [
      { role: 'user', content: 'a', id: 'x1', metadata: { k: [1, { d: null }] } },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} }] },
    ]);
    await store.sessions.append(id, { type: 'note', data: { not: 'a message' } });
    await agree();
    await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary', createdAt: '2026-01-02T03:04:05.678Z' }], 1, 0);
    await store.messages.append(id, { role: 'user', content: 'after' });
    await agree();
    await store.messages.appendRepair(id, { role: 'tool', content: [{ type: 'text', text: 'repair' }] }, [{ role: 'user', content: 'balanced' }], 2);
    await agree();
    expect((await store.messages.getHistory(id)).map((m) => [m.seq, m.content])).toEqual([
      [null, 'balanced'],
      [5, 'after'],
    ]);
    expect(await store.messages.getHistory(unique('missing'))).toEqual([]);
    expect(await store.messages.count(unique('missing'))).toBe(0);
    for (const read of [
      () => scoped.getHistory(unique('missing')),
      () => scoped.count(unique('missing')),
      () => store.tenants.forTenant('globex').messages.getHistory(id),
      () => store.tenants.forTenant('globex').messages.count(id),
    ]) {
      await expect(read()).rejects.toThrow(StoreNotFoundError);
    }
  });

  test("SessionStore.list on the fast path equals the full path's, filters, search and cursors included", async () => {
    const parent = await store.sessions.create({ id: unique('list-parent'), tenantId: 'lister', title: 'p', metadata: { a: [1, 'x'] } });
    for (let i = 0; i < 5; i++) await store.sessions.create({ id: unique('list-child'), tenantId: 'lister', parentId: parent, title: `c${i}` });
    await store.sessions.create({ id: unique('list-other'), tenantId: 'other-lister' });
    const full = new PrismaSessionStore(fullPath());
    const queries = [
      { tenantId: 'lister', limit: 2 },
      { parentId: parent, limit: 3 },
      { tenantId: 'lister', createdAfter: new Date(0), createdBefore: new Date('9999-01-01') },
      { limit: 500 },
      { tenantId: 'lister', search: 'C', limit: 2 },
      { search: 'LIST-child', createdAfter: new Date(0), limit: 4 },
    ];
    for (const query of queries) {
      let [viaFast, viaFull] = [await store.sessions.list(query), await full.list(query)];
      expect(viaFast).toEqual(viaFull);
      while (viaFast.nextCursor) {
        [viaFast, viaFull] = [await store.sessions.list({ ...query, cursor: viaFast.nextCursor }), await full.list({ ...query, cursor: viaFull.nextCursor! })];
        expect(viaFast).toEqual(viaFull);
      }
    }
    const spy = jest.spyOn(fast(), 'listSessions');
    try {
      await store.tenants.forTenant('lister').sessions.list();
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  test("SessionStore.update where the kit has it in one statement equals the full path's, scoped and not, parents and forks included", async () => {
    const full = new PrismaSessionStore(fullPath());
    const parent = await store.sessions.create({ id: unique('update-parent'), tenantId: 'updater' });
    const child = await store.sessions.create({ id: unique('update-child'), tenantId: 'updater', parentId: parent, title: 't', metadata: { a: 1 } });
    await store.messages.append(child, { role: 'user', content: 'x' });
    const forked = (await store.sessions.fork(child, { id: unique('update-fork') })).id;
    const changes = [{ title: 'new' }, { metadata: { b: [1, 'two', null] } }, { title: null, metadata: null }, {}, { title: '✈️', metadata: {} }];
    for (const id of [child, forked]) {
      for (const change of changes) {
        const viaFast = await store.sessions.update(id, change);
        const viaFull = await full.update(id, change);
        expect(viaFast).toEqual({ ...viaFull, updatedAt: viaFast.updatedAt });
        expect(viaFast.updatedAt.getTime()).toBeLessThanOrEqual(viaFull.updatedAt.getTime());
      }
    }
    const scoped = store.tenants.forTenant('other-updater').sessions;
    await expect(scoped.update(child, { title: 'theirs' })).rejects.toThrow(StoreNotFoundError);
    expect((await store.sessions.get(child))!.title).toBe('✈️');
    await expect(store.sessions.update(unique('update-missing'), { title: 'x' })).rejects.toThrow(StoreNotFoundError);
    // One statement where the UPDATE returns the header: PostgreSQL and SQLite (MariaDB's returns no rows: the update and a read of the header).
    if (database.provider !== 'mysql') expect(await statementsSent(database.provider, () => store.sessions.update(child, { title: 'counted' }))).toBe(1);
    const spy = jest.spyOn(fast(), 'updateHeader');
    try {
      expect((await store.tenants.forTenant('updater').sessions.update(child, { title: 'scoped' })).title).toBe('scoped');
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  test("pruneTranscript and getTranscriptPage agree on the driver and through Prisma's raw queries: reports, rows, pages and stale cursors", async () => {
    const full = new PrismaMessageStore(fullPath());
    const compacted = async (id: string) => {
      await store.messages.appendMany(
        id,
        Array.from({ length: 12 }, (_, i): MessageInput => ({ role: 'user', content: `m${i}`, metadata: { i } })),
      );
      await store.sessions.append(id, { type: 'note', data: { kept: true } });
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'first' }], 5, 0);
      await store.messages.appendRepair(id, { role: 'tool', content: [{ type: 'text', text: 'repair' }] }, [{ role: 'user', content: 'balanced' }], 1);
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'second' }], 4, 0);
      return id;
    };
    const pages = async (messages: MessageStore, id: string) => {
      const read = [];
      for (let cursor: string | undefined; ;) {
        const page = await messages.getTranscriptPage(id, { limit: 3, cursor });
        read.push(page);
        if (page.nextCursor === null) return read;
        cursor = page.nextCursor;
      }
    };
    const [onDriver, onPrisma] = [await compacted(unique('prune-driver')), await compacted(unique('prune-prisma'))];
    const before = await pages(store.messages, onDriver);
    expect(await pages(full, onDriver)).toEqual(before);
    expect(before.flatMap((page) => page.messages).map((m) => m.content)).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
    const history = await store.messages.getHistory(onDriver);
    const stored = async (id: string) => (await store.messages.getTranscript(id)).length;
    const [driverBefore, prismaBefore] = [await stored(onDriver), await stored(onPrisma)];
    const report = await store.messages.pruneTranscript(onDriver);
    expect(await full.pruneTranscript(onPrisma)).toEqual(report);
    expect(report).toEqual({ messages: driverBefore - (await stored(onDriver)), boundaries: 1 });
    expect(report.messages).toBeGreaterThan(0);
    expect(prismaBefore - (await stored(onPrisma))).toBe(report.messages);
    expect(await store.messages.getHistory(onDriver)).toEqual(history);
    expect((await store.messages.getHistory(onPrisma)).map((m) => [m.seq, m.content])).toEqual(history.map((m) => [m.seq, m.content]));
    const after = await pages(store.messages, onDriver);
    expect(await pages(full, onDriver)).toEqual(after);
    expect(await store.messages.pruneTranscript(onDriver)).toEqual({ messages: 0, boundaries: 0 });
    expect(await full.pruneTranscript(onPrisma)).toEqual({ messages: 0, boundaries: 0 });
    // A cursor on a pruned message is stale on either path.
    for (const messages of [store.messages, full]) {
      await expect(messages.getTranscriptPage(onDriver, { limit: 3, cursor: before[0].nextCursor! })).rejects.toThrow(StoreConflictError);
    }
  });

  test("exportJsonl reads the same lines on the driver and through Prisma's raw queries, scoped or not", async () => {
    const lines = async (sessions: { exportJsonl(id: string): AsyncIterable<string> }, id: string) => {
      const read: string[] = [];
      for await (const line of sessions.exportJsonl(id)) read.push(line);
      return read;
    };
    const id = await store.sessions.create({ id: unique('export'), tenantId: 'exporter', title: 'ex', metadata: { k: [1, 'x'] } });
    await store.sessions.create({ id: unique('export-child'), tenantId: 'exporter', parentId: id });
    await store.messages.appendMany(
      id,
      Array.from({ length: 8 }, (_, i): MessageInput => ({ role: 'user', content: `m${i}`, id: `x${i}` })),
    );
    await store.sessions.append(id, { type: 'note', data: { at: 'the middle' } });
    await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary' }], 4, 0);
    await store.messages.appendRepair(id, { role: 'tool', content: [{ type: 'text', text: 'repair' }] }, [{ role: 'user', content: 'balanced' }], 1);
    const onDriver = await lines(store.sessions, id);
    expect(onDriver.length).toBeGreaterThan(12);
    expect(await lines(new PrismaSessionStore(fullPath()), id)).toEqual(onDriver);
    expect(await lines(new PrismaSessionStore(fullPath(), 'exporter'), id)).toEqual(onDriver);
    expect(await lines(store.tenants.forTenant('exporter').sessions, id)).toEqual(onDriver);
    for (const sessions of [new PrismaSessionStore(fullPath(), 'other-exporter'), store.tenants.forTenant('other-exporter').sessions]) {
      await expect(lines(sessions, id)).rejects.toThrow(StoreNotFoundError);
    }
  });

  test('dates read back to the millisecond across the whole range the store takes, before 1970 included', async () => {
    const id = unique();
    const dates = ['1000-01-01T00:00:00.000Z', '1969-07-20T20:17:40.001Z', '1970-01-01T00:00:00.000Z', '2026-11-30T01:02:03.999Z', '9999-12-31T23:59:59.999Z'];
    await store.messages.appendMany(
      id,
      dates.map((createdAt) => ({ role: 'user', content: createdAt, createdAt })),
    );
    await store.messages.append(id, { role: 'user', content: 'on the append path', createdAt: dates[1] });
    const read = (await store.messages.getHistory(id)).map((m) => m.createdAt.toISOString());
    expect(read).toEqual([...dates, dates[1]]);
  });

  // SQLite checks the range itself and names the thread; the servers refuse the UPDATE, and their drivers could quote its parameters.
  if (database.provider !== 'sqlite') {
    test("a statement the server refuses is reported without the statement's parameters", async () => {
      const id = unique('private-thread');
      await store.messages.append(id, { role: 'user', content: 'a' });
      await store.db.client.agentThread.update({ where: { id }, data: { lastSeq: 2_147_483_647 } });
      const error = await store.messages.append(id, { role: 'user', content: 'b' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreValidationError);
      expect((error as Error).message).not.toContain(id);
      expect(String(((error as Error).cause as Error).message)).not.toContain(id);
    });
  }

  test('getHistory and count of unscoped and scoped stores take the read path', async () => {
    const id = await store.sessions.create({ id: unique(), tenantId: 'acme' });
    await store.messages.append(id, { role: 'user', content: 'a' });
    const history = jest.spyOn(fast(), 'history');
    const count = jest.spyOn(fast(), 'count');
    try {
      for (const messages of [store.messages, store.tenants.forTenant('acme').messages]) {
        await messages.getHistory(id);
        await messages.count(id);
      }
      expect([history.mock.calls, count.mock.calls]).toEqual([
        [
          [id, undefined],
          [id, 'acme'],
        ],
        [
          [id, undefined],
          [id, 'acme'],
        ],
      ]);
    } finally {
      history.mockRestore();
      count.mockRestore();
    }
  });

  test('a first appendMany of 5,000 messages is stored whole', async () => {
    const id = unique('big');
    const stored = await store.messages.appendMany(
      id,
      Array.from({ length: 5000 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
    );
    expect(stored.at(-1)?.seq).toBe(5000);
    expect(await store.messages.count(id)).toBe(5000);
    const transcript = await store.messages.getTranscript(id);
    expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(transcript[4999].content).toBe('m4999');
  });

  // A scoped read of another tenant's session must not even read its rows: the answer would be
  // the same, but its time would tell the size of the session, and the work would be the other tenant's.
  if (database.provider !== 'mysql') {
    test("a scoped read statement returns no row of another tenant's session", async () => {
      const id = await store.sessions.create({ id: unique('private'), tenantId: 'acme' });
      await store.messages.appendMany(
        id,
        Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
      );
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary' }], 5, 0);
      const reads = database.provider === 'sqlite' ? SQLITE_SQL : POSTGRES_SQL;
      const run = async (statement: string, tenant: string): Promise<unknown[][]> => {
        if (database.provider === 'sqlite') {
          const db = new Database(store.url.slice('file:'.length), { readonly: true });
          try {
            return db.prepare(statement).raw().all({ thread: id, tenant }) as unknown[][];
          } finally {
            db.close();
          }
        }
        const client = new pg.Client({ connectionString: store.url });
        await client.connect();
        try {
          return (await client.query({ text: statement, values: [id, tenant], rowMode: 'array' })).rows;
        } finally {
          await client.end();
        }
      };
      // The owner's read returns the ownership row, the boundary and the log after its cut; another tenant's, nothing at all.
      expect((await run(reads.scopedHistory, 'acme')).length).toBe(1 + 1 + 15);
      expect(await run(reads.scopedHistory, 'globex')).toEqual([]);
      expect((await run(reads.scopedCount, 'acme')).map(([owned, count]) => [Number(owned), Number(count)])).toEqual([[1, 16]]);
      expect((await run(reads.scopedCount, 'globex')).map(([owned, count]) => [Number(owned), Number(count)])).toEqual([[0, 0]]);
    });
  } else {
    test('a scoped read finds the latest boundary by its key, with no temporary table or sort whatever the number of boundaries; a history reads a range of the log, and nothing of another tenant', async () => {
      const id = await store.sessions.create({ id: unique('many-boundaries'), tenantId: 'acme' });
      await store.messages.appendMany(
        id,
        Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
      );
      for (let i = 0; i < 10; i++) await store.messages.appendCompaction(id, [{ role: 'system', content: `summary ${i}` }], 1, 0);
      const connection = await mariadb.createConnection(store.url.replace(/^mysql:/, 'mariadb:'));
      try {
        const plan = (await connection.query(`EXPLAIN SELECT b.messages, b.cut_seq ${MYSQL.ownedLatest}`, [id, id, 'acme'])) as { Extra: string | null }[];
        expect(plan.map((step) => step.Extra ?? '').join(' | ')).not.toMatch(/temporary|filesort/i);
        const [row] = (await connection.query(`SELECT b.seq ${MYSQL.ownedLatest}`, [id, id, 'acme'])) as { seq: number }[];
        expect(row.seq).toBe(20);
        expect(await connection.query(`SELECT b.seq ${MYSQL.ownedLatest}`, [id, id, 'globex'])).toHaveLength(0);
        // The history's one statement, scoped or not, reads the log by a range of its key after the cut, not the thread's every row, and sorts nothing.
        for (const tenant of [undefined, 'acme']) {
          const { text, args } = MYSQL.history(id, tenant);
          const steps = (await connection.query(`EXPLAIN ${text}`, args)) as { table: string; type: string; Extra: string | null }[];
          expect({ tenant, log: steps.find((step) => step.table === 'm')?.type }).toEqual({ tenant, log: 'range' });
          expect({ tenant, extra: steps.map((step) => step.Extra ?? '').join(' | ') }).toEqual({
            tenant,
            extra: expect.not.stringMatching(/temporary|filesort/i),
          });
        }
        const rows = async ({ text, args }: { text: string; args: string[] }) =>
          (await connection.query({ sql: text, rowsAsArray: true }, args)) as unknown[][];
        expect(await rows(MYSQL.history(id, 'globex'))).toHaveLength(0);
        const unscoped = await rows(MYSQL.history(id, undefined));
        expect(unscoped.length).toBeGreaterThan(1);
        expect(await rows(MYSQL.history(id, 'acme'))).toEqual([[-1, null, null, null, null, null, null, null, null], ...unscoped]);
      } finally {
        await connection.end();
      }
    });
  }
});
