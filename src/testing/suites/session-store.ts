// SessionStore on every backend: headers, entries, listing.
import { isEvent, StoreConflictError, StoreNotFoundError, StoreValidationError, type SessionMeta } from '../../index.js';
import type { Suite } from '../kit.js';

/** SessionStore: headers, entries and listing. */
export const sessionStore: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const unique = (name = 's') => `${name}-${++n}`;

  describe('create and get', () => {
    test('returns a generated UUID when no id is given, and stores the header', async () => {
      const parent = await store.sessions.create({ id: unique('parent'), tenantId: 'acme' });
      const id = await store.sessions.create({ title: 'Research', tenantId: 'acme', parentId: parent, metadata: { model: 'm' } });
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(await store.sessions.get(id)).toMatchObject({ id, title: 'Research', tenantId: 'acme', parentId: parent, metadata: { model: 'm' } });
      expect(await store.transcripts.getSubsessions(parent)).toEqual([id]);
      expect(await store.sessions.get(unique())).toBeNull();
    });

    test('a duplicate id is a conflict and changes nothing', async () => {
      const id = await store.sessions.create({ id: unique(), title: 'first' });
      await expect(store.sessions.create({ id, title: 'second' })).rejects.toThrow(StoreConflictError);
      expect((await store.sessions.get(id))?.title).toBe('first');
    });

    test('the id of a deleted session is not reused', async () => {
      const id = await store.sessions.create({ id: unique() });
      await store.transcripts.deleteTranscript(id);
      await expect(store.sessions.create({ id })).rejects.toThrow(StoreConflictError);
      expect(await store.sessions.get(id)).toBeNull();
    });

    test("a subsession in another tenant than its parent's is a conflict, and the session is not created", async () => {
      const parent = await store.sessions.create({ id: unique('parent'), tenantId: 'acme' });
      for (const tenantId of ['globex', undefined]) {
        const id = unique();
        await expect(store.sessions.create({ id, tenantId, parentId: parent })).rejects.toThrow(StoreConflictError);
        expect(await store.sessions.get(id)).toBeNull();
      }
      expect(await store.transcripts.getSubsessions(parent)).toEqual([]);
    });

    test('an unknown parent is not found, and the session is not created', async () => {
      const id = unique();
      await expect(store.sessions.create({ id, parentId: unique('missing') })).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(id)).toBeNull();
    });

    test.each([
      ['an unknown property', { id: 'x1', owner: 'me' }],
      ['an empty id', { id: '' }],
      ['a tenant id that is not a string', { tenantId: 7 }],
      ['a title that is not a string', { title: ['t'] }],
      ['metadata that is not an object', { metadata: 'm' }],
      ['a title longer than 65,535 bytes', { title: '🚀'.repeat(16_384) }],
    ])('rejects %s', async (_name, meta) => {
      await expect(store.sessions.create(meta as never)).rejects.toThrow(StoreValidationError);
    });
  });

  describe('append and load', () => {
    test('a message whose id the session holds is not stored again; the same id with other content is a conflict', async () => {
      const id = await store.sessions.create();
      const first = await store.sessions.append(id, { role: 'user', content: 'hi', id: 'm1' });
      await store.sessions.append(id, { type: 'note', data: 1 });
      expect(await store.sessions.append(id, { role: 'user', content: 'hi', id: 'm1' })).toEqual(first);
      // MessageStore sees the same id: a retried append through it finds the row too.
      expect(await store.messages.append(id, { role: 'user', content: 'hi', id: 'm1' })).toEqual(first);
      await expect(store.sessions.append(id, { role: 'user', content: 'changed', id: 'm1' })).rejects.toThrow(StoreConflictError);
      expect((await store.sessions.load(id)).map((entry) => entry.seq)).toEqual([1, 2]);
    });

    test.each(['ui-message', 'ui-message-order'])("an event of ChatStore's type %s is refused: it would become part of a chat", async (type) => {
      const id = await store.sessions.create();
      await expect(store.sessions.append(id, { type, data: { id: 'x', role: 'user', parts: [] } })).rejects.toThrow(/ChatStore/);
      expect(await store.sessions.load(id)).toEqual([]);
    });

    test('messages and events come back in append order', async () => {
      const id = await store.sessions.create();
      await store.sessions.append(id, { role: 'user', content: 'hi' });
      const started = await store.sessions.append(id, { type: 'tool-started', data: { tool: 'search', args: [1, 'two'] } });
      await store.sessions.append(id, { role: 'assistant', content: [{ type: 'text', text: 'done' }] });
      await store.sessions.append(id, { type: 'checkpoint' });

      const entries = await store.sessions.load(id);
      expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
      expect(entries.map((entry) => (isEvent(entry) ? `event:${entry.type}` : `message:${entry.role}`))).toEqual([
        'message:user',
        'event:tool-started',
        'message:assistant',
        'event:checkpoint',
      ]);
      expect(entries[1]).toEqual(started);
      expect(entries[3]).toMatchObject({ type: 'checkpoint', data: null });
    });

    test('events are not messages: the effective history and transcript leave them out', async () => {
      const id = await store.sessions.create();
      await store.sessions.append(id, { role: 'user', content: 'a' });
      await store.sessions.append(id, { type: 'note', data: 'between' });
      await store.sessions.append(id, { role: 'user', content: 'b' });
      expect((await store.messages.getHistory(id)).map((m) => m.content)).toEqual(['a', 'b']);
      expect(await store.messages.count(id)).toBe(2);
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary of a' }], 1, 0);
      expect((await store.messages.getHistory(id)).map((m) => m.content)).toEqual(['summary of a', 'b']);
    });

    test('appending to a session that was never created is not found, and creates nothing', async () => {
      const id = unique('never');
      await expect(store.sessions.append(id, { role: 'user', content: 'x' })).rejects.toThrow(StoreNotFoundError);
      await expect(store.sessions.append(id, { type: 'x' })).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(id)).toBeNull();
      await expect(store.sessions.load(id)).rejects.toThrow(StoreNotFoundError);
    });

    test.each([
      ['an event without a type', { data: 1 }],
      ['an event with an unknown property', { type: 'x', payload: 1 }],
      ['an event whose data is not JSON', { type: 'x', data: new Date() }],
      ['a message with a bad role', { role: 'bot', content: 'x' }],
      ['null', null],
    ])('rejects %s and appends nothing', async (_name, entry) => {
      const id = await store.sessions.create();
      await expect(store.sessions.append(id, entry as never)).rejects.toThrow(StoreValidationError);
      expect(await store.sessions.load(id)).toEqual([]);
    });
  });

  describe('list', () => {
    /** Sessions created one after another, so their creation times are in order (ties break by id). */
    async function createSessions(count: number, meta: { tenantId?: string; parentId?: string } = {}) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await store.sessions.create({ ...meta, id: unique('listed') }));
      return ids;
    }
    const newestFirst = (metas: SessionMeta[]) =>
      [...metas].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

    test('pages through every session of a tenant exactly once, newest first', async () => {
      const tenant = unique('tenant');
      const ids = await createSessions(23, { tenantId: tenant });
      const seen: SessionMeta[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.sessions.list({ tenantId: tenant, limit: 10, cursor });
        seen.push(...page.sessions);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen.map((s) => s.id).sort()).toEqual([...ids].sort());
      expect(seen).toEqual(newestFirst(seen));
    });

    test("with a tenant, never another tenant's sessions", async () => {
      const [mine, theirs] = [unique('mine'), unique('theirs')];
      const ids = await createSessions(3, { tenantId: mine });
      await createSessions(3, { tenantId: theirs });
      await createSessions(2);
      const page = await store.sessions.list({ tenantId: mine, limit: 500 });
      expect(page.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
      expect(page.sessions.every((s) => s.tenantId === mine)).toBe(true);
    });

    test('tenants that differ only in case are different tenants', async () => {
      const upper = await store.sessions.create({ tenantId: `ACME-${unique()}` });
      const tenant = (await store.sessions.get(upper))!.tenantId!;
      expect((await store.sessions.list({ tenantId: tenant.toLowerCase() })).sessions).toEqual([]);
      expect((await store.sessions.list({ tenantId: tenant })).sessions.map((s) => s.id)).toEqual([upper]);
    });

    test('filters by parent and by creation time', async () => {
      const parent = await store.sessions.create({ id: unique('parent') });
      const children = await createSessions(3, { parentId: parent });
      expect((await store.sessions.list({ parentId: parent })).sessions.map((s) => s.id).sort()).toEqual([...children].sort());

      const tenant = unique('timed');
      const [early] = await createSessions(1, { tenantId: tenant });
      await new Promise((resolve) => setTimeout(resolve, 15));
      const boundary = new Date();
      await new Promise((resolve) => setTimeout(resolve, 15));
      const [late] = await createSessions(1, { tenantId: tenant });
      expect((await store.sessions.list({ tenantId: tenant, createdAfter: boundary })).sessions.map((s) => s.id)).toEqual([late]);
      expect((await store.sessions.list({ tenantId: tenant, createdBefore: boundary })).sessions.map((s) => s.id)).toEqual([early]);
    });

    test.each([
      ['a cursor it did not hand out', { cursor: 'bm90LWEtY3Vyc29y' }],
      ['a forged cursor whose time is no date', { cursor: Buffer.from(JSON.stringify([1e300, 'x'])).toString('base64url') }],
      ['a forged cursor whose id the store would refuse', { cursor: Buffer.from(JSON.stringify([0, 'x'.repeat(500)])).toString('base64url') }],
      ['a limit of 0', { limit: 0 }],
      ['a limit above 500', { limit: 501 }],
      ['an invalid date', { createdAfter: new Date('nope') }],
      ['a date string rather than a Date', { createdBefore: '2024-05-01T00:00:00Z' }],
      ['a date past the year 9999', { createdBefore: new Date(Date.UTC(10000, 0, 1)) }],
      ['an unknown option', { owner: 'me' }],
      ['a tenant that is not a string', { tenantId: { contains: '' } }],
    ])('rejects %s', async (_name, options) => {
      await expect(store.sessions.list(options as never)).rejects.toThrow(StoreValidationError);
    });
  });

  describe('update', () => {
    /** A session with a header in every field and a log, to show what update leaves alone. */
    async function richSession() {
      const tenantId = unique('tenant');
      const parent = await store.sessions.create({ id: unique('parent'), tenantId });
      const id = await store.sessions.create({ id: unique('rich'), title: 'Research', tenantId, parentId: parent, metadata: { model: 'm', tags: ['a'] } });
      await store.sessions.append(id, { role: 'user', content: 'hi' });
      await store.sessions.append(id, { type: 'note', data: 1 });
      return id;
    }
    const logOf = async (id: string) => ({ entries: await store.sessions.load(id), history: await store.messages.getHistory(id) });

    test('changes the title and metadata, returns the new header, and leaves everything else', async () => {
      const id = await richSession();
      const before = (await store.sessions.get(id))!;
      const log = await logOf(id);
      const updated = await store.sessions.update(id, { title: 'Renamed ✈️', metadata: { model: 'n', nested: { deep: [1, null, true] } } });
      expect(updated).toEqual({ ...before, title: 'Renamed ✈️', metadata: { model: 'n', nested: { deep: [1, null, true] } }, updatedAt: updated.updatedAt });
      expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
      expect(await store.sessions.get(id)).toEqual(updated);
      expect(await logOf(id)).toEqual(log);
    });

    test('a field that is absent is left as it is', async () => {
      const id = await richSession();
      const before = (await store.sessions.get(id))!;
      expect(await store.sessions.update(id, { title: 'only the title' })).toMatchObject({ title: 'only the title', metadata: before.metadata });
      expect(await store.sessions.update(id, { metadata: { only: 'metadata' } })).toMatchObject({ title: 'only the title', metadata: { only: 'metadata' } });
      const unchanged = await store.sessions.update(id, {});
      expect(unchanged).toMatchObject({ title: 'only the title', metadata: { only: 'metadata' }, tenantId: before.tenantId, parentId: before.parentId });
      expect(await store.sessions.get(id)).toEqual(unchanged);
    });

    test('a field given as undefined is absent', async () => {
      const id = await richSession();
      const before = (await store.sessions.get(id))!;
      expect(await store.sessions.update(id, { title: undefined, metadata: { v: 2 } })).toMatchObject({ title: before.title, metadata: { v: 2 } });
      expect(await store.sessions.update(id, { title: 't', metadata: undefined })).toMatchObject({ title: 't', metadata: { v: 2 } });
    });

    test('null clears a field', async () => {
      const id = await richSession();
      expect(await store.sessions.update(id, { title: null })).toMatchObject({ title: null, metadata: { model: 'm', tags: ['a'] } });
      expect(await store.sessions.update(id, { metadata: null })).toMatchObject({ title: null, metadata: null });
      expect(await store.sessions.get(id)).toMatchObject({ title: null, metadata: null });
      const both = await store.sessions.create({ title: 't', metadata: { m: 1 } });
      expect(await store.sessions.update(both, { title: null, metadata: null })).toMatchObject({ title: null, metadata: null });
      expect(await store.sessions.get(both)).toMatchObject({ title: null, metadata: null });
    });

    test('metadata is replaced, not merged', async () => {
      const id = await store.sessions.create({ metadata: { a: 1, keep: { x: 1 } } });
      expect((await store.sessions.update(id, { metadata: { b: 2 } })).metadata).toEqual({ b: 2 });
      expect((await store.sessions.update(id, { metadata: {} })).metadata).toEqual({});
    });

    test('a title of exactly 65,535 bytes is kept', async () => {
      const id = await store.sessions.create();
      const title = '🚀'.repeat(16_383) + 'abc';
      expect((await store.sessions.update(id, { title })).title).toBe(title);
      expect((await store.sessions.get(id))?.title).toBe(title);
    });

    test('concurrent updates of different fields keep both', async () => {
      const id = await store.sessions.create();
      for (let round = 0; round < 10; round++) {
        await Promise.all([
          store.sessions.update(id, { title: `title ${round}` }),
          store.sessions.update(id, { metadata: { round } }),
          store.sessions.append(id, { type: 'tick', data: round }),
        ]);
        expect(await store.sessions.get(id)).toMatchObject({ title: `title ${round}`, metadata: { round } });
      }
      expect(await store.sessions.load(id)).toHaveLength(10);
    });

    test('an unknown or deleted session is not found, and nothing is created', async () => {
      const missing = unique('missing');
      await expect(store.sessions.update(missing, { title: 'x' })).rejects.toThrow(StoreNotFoundError);
      await expect(store.sessions.update(missing, {})).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(missing)).toBeNull();
      expect(await store.transcripts.getTranscript(missing)).toBeNull();

      const deleted = await store.sessions.create({ title: 'gone' });
      await store.transcripts.deleteTranscript(deleted);
      await expect(store.sessions.update(deleted, { title: 'back' })).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(deleted)).toBeNull();
    });

    test.each([
      ['changes that are not an object', 'title'],
      ['null changes', null],
      ['an array of changes', [{ title: 'x' }]],
      ['a tenant id (a session belongs to its tenant for good)', { tenantId: 'other' }],
      ['a parent id', { parentId: 'other' }],
      ['an id', { id: 'other' }],
      ['a creation time', { createdAt: new Date() }],
      ['an unknown property beside a valid one', { title: 'ok', owner: 'me' }],
      ['a title that is not a string', { title: 42 }],
      ['a title longer than 65,535 bytes', { title: '🚀'.repeat(16_384) }],
      ['a title with a NUL character', { title: 'a\u0000b' }],
      ['a title with a lone surrogate', { title: 'a\ud800b' }],
      ['metadata that is not an object', { metadata: 'm' }],
      ['metadata that is an array', { metadata: [1] }],
      ['metadata that is not JSON', { metadata: { when: new Date() } }],
      ['metadata with a non-finite number', { metadata: { n: Number.NaN } }],
      ['a valid title with invalid metadata', { title: 'fine', metadata: { n: Number.POSITIVE_INFINITY } }],
    ])('rejects %s and changes nothing', async (_name, changes) => {
      const id = await richSession();
      const before = await store.sessions.get(id);
      const log = await logOf(id);
      await expect(store.sessions.update(id, changes as never)).rejects.toThrow(StoreValidationError);
      expect(await store.sessions.get(id)).toEqual(before);
      expect(await logOf(id)).toEqual(log);
    });

    test.each([
      ['an empty session id', ''],
      ['a session id of 192 characters', 's'.repeat(192)],
      ['a session id that is not a string', 7],
    ])('rejects %s', async (_name, id) => {
      await expect(store.sessions.update(id as never, { title: 'x' })).rejects.toThrow(StoreValidationError);
    });
  });
};
