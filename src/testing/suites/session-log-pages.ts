// SessionStore.getLogPage and list's search on every backend: the whole log a page at a
// time (what the viewer reads), and sessions found by a part of their id or title.
import { randomUUID } from 'node:crypto';
import { StoreNotFoundError, StoreValidationError, type MessageInput, type SessionLogEntry, type SessionStore } from '../../index.js';
import type { Suite } from '../kit.js';

const user = (content: string): MessageInput => ({ role: 'user', content });
const call = (id: string): MessageInput => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: { q: id } }] });

/** Every page of the log read with `limit`, in order. */
async function wholeLog(sessions: SessionStore, id: string, limit: number): Promise<SessionLogEntry[][]> {
  const pages: SessionLogEntry[][] = [];
  let cursor: string | undefined;
  do {
    const page = await sessions.getLogPage(id, { limit, cursor });
    pages.push(page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

/** The export's log lines: what every entry of the log page must equal, as JSON. */
async function exportedLog(sessions: SessionStore, id: string): Promise<object[]> {
  const lines: object[] = [];
  for await (const line of sessions.exportJsonl(id)) lines.push(JSON.parse(line) as object);
  return lines.filter((line) => !['session', 'subsession'].includes((line as { type: string }).type));
}

/** Entries as JSON: what their export lines hold, for the plain JSON values these sessions keep (dates as ISO text). */
const asJson = (entries: SessionLogEntry[]) => entries.map((entry) => JSON.parse(JSON.stringify(entry)) as object);

/** SessionStore's getLogPage (the whole log a page at a time, what the viewer reads) and list's `search`. */
export const sessionLogPages: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const unique = (name = 'log') => `${name}-${++n}-${randomUUID().slice(0, 8)}`;

  /** A session whose log mixes messages, events, two compactions back to back and a repair. */
  async function mixedSession(): Promise<string> {
    const id = await store.sessions.create({ id: unique(), title: 'mixed' });
    await store.messages.appendMany(id, [user('one'), { role: 'assistant', content: 'two' }, user('three')]);
    await store.sessions.append(id, { type: 'note', data: { at: 'after three' } });
    await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary of one to three' }], 3, 0);
    await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary again' }], 1, 0);
    await store.messages.appendMany(id, [user('four'), call('orphan')]);
    await store.messages.repairToolCalls(id);
    await store.sessions.append(id, { type: 'note', data: null });
    await store.messages.append(id, user('five'));
    return id;
  }

  describe('getLogPage', () => {
    test('pages of any size read the whole log in seq order, each entry as the export writes it', async () => {
      const id = await mixedSession();
      const exported = await exportedLog(store.sessions, id);
      expect(exported.map((line) => (line as { type: string }).type)).toEqual([
        'message',
        'message',
        'message',
        'event',
        'compaction',
        'compaction',
        'message',
        'message',
        'repair',
        'event',
        'message',
      ]);
      for (const limit of [1, 2, 3, 5, 100]) {
        const pages = await wholeLog(store.sessions, id, limit);
        expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
        expect(pages.at(-1)!.length).toBeGreaterThan(0);
        expect(asJson(pages.flat())).toEqual(exported);
      }
    });

    test('a boundary carries its cut, its messages and, for a repair, its evidence', async () => {
      const id = await mixedSession();
      const { entries } = await store.sessions.getLogPage(id);
      const [first, second] = entries.filter((entry) => entry.type === 'compaction');
      expect(first).toMatchObject({
        cutSeq: 3,
        sourceMessageCount: 3,
        retainedMessageCount: 0,
        messages: [{ role: 'system', content: 'summary of one to three' }],
      });
      expect(second).toMatchObject({ cutSeq: 3, sourceMessageCount: 1, messages: [{ role: 'system', content: 'summary again' }] });
      const repair = entries.find((entry) => entry.type === 'repair');
      expect(repair).toMatchObject({ type: 'repair', repairMessage: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'orphan' }] } });
      const event = entries.find((entry) => entry.type === 'event');
      expect(event).toMatchObject({ type: 'event', seq: 4, event: { type: 'note', data: { at: 'after three' } } });
      expect(event && 'createdAt' in event && event.createdAt).toBeInstanceOf(Date);
    });

    test('fromSeq starts at the first entry at or after it, a boundary included', async () => {
      const id = await mixedSession();
      const all = (await store.sessions.getLogPage(id)).entries;
      const compaction = all.find((entry) => entry.type === 'compaction')!;
      const page = await store.sessions.getLogPage(id, { fromSeq: compaction.seq, limit: 2 });
      expect(page.entries).toEqual(all.slice(all.indexOf(compaction), all.indexOf(compaction) + 2));
      const rest = await store.sessions.getLogPage(id, { cursor: page.nextCursor! });
      expect(rest.entries).toEqual(all.slice(all.indexOf(compaction) + 2));
      expect(rest.nextCursor).toBeNull();
      expect(await store.sessions.getLogPage(id, { fromSeq: all.at(-1)!.seq + 1 })).toEqual({ entries: [], nextCursor: null });
    });

    test('an empty session has an empty page; an unknown or deleted one is not found', async () => {
      const id = await store.sessions.create({ id: unique() });
      expect(await store.sessions.getLogPage(id)).toEqual({ entries: [], nextCursor: null });
      await expect(store.sessions.getLogPage(unique())).rejects.toThrow(StoreNotFoundError);
      await store.transcripts.deleteTranscript(id);
      await expect(store.sessions.getLogPage(id)).rejects.toThrow(StoreNotFoundError);
    });

    test('a cursor reads on after the rows before it are pruned', async () => {
      const id = await store.sessions.create({ id: unique() });
      await store.messages.appendMany(id, [user('a'), user('b'), user('c')]);
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'a to c' }], 3, 0);
      await store.messages.append(id, user('d'));
      const first = await store.sessions.getLogPage(id, { limit: 3 });
      await store.messages.pruneTranscript(id);
      const rest = await store.sessions.getLogPage(id, { cursor: first.nextCursor! });
      expect(rest.entries.map((entry) => entry.seq)).toEqual([4, 5]);
      // The boundary keeps its cut as stored, though the messages it names are gone.
      expect((await store.sessions.getLogPage(id)).entries).toMatchObject([
        { type: 'compaction', seq: 4, cutSeq: 3 },
        { type: 'message', seq: 5 },
      ]);
    });

    test("another tenant's session is not found, and its cursors are refused", async () => {
      const acme = store.tenants.forTenant(unique('acme'));
      const globex = store.tenants.forTenant(unique('globex'));
      const id = await acme.sessions.create({ id: unique() });
      await acme.messages.appendMany(id, [user('secret 1'), user('secret 2')]);
      const page = await acme.sessions.getLogPage(id, { limit: 1 });
      expect(page.entries).toHaveLength(1);
      await expect(globex.sessions.getLogPage(id)).rejects.toThrow(StoreNotFoundError);
      await expect(globex.sessions.getLogPage(id, { cursor: page.nextCursor! })).rejects.toThrow(StoreNotFoundError);
      const other = await globex.sessions.create({ id: unique() });
      await expect(globex.sessions.getLogPage(other, { cursor: page.nextCursor! })).rejects.toThrow(StoreValidationError);
    });

    test('bad page options are refused', async () => {
      const id = await mixedSession();
      const { nextCursor } = await store.sessions.getLogPage(id, { limit: 1 });
      const history = await store.messages.getHistoryPage(id, { limit: 1 });
      for (const options of [
        { limit: 0 },
        { limit: 1001 },
        { limit: 1.5 },
        { fromSeq: 0 },
        { fromSeq: 2.5 },
        { fromSeq: '3' },
        { fromSeq: 2_147_483_648 },
        { fromSeq: 2, cursor: nextCursor! },
        { cursor: 'not a cursor' },
        { cursor: history.nextCursor! },
        { after: 3 },
        'first',
      ]) {
        await expect(store.sessions.getLogPage(id, options as never)).rejects.toThrow(StoreValidationError);
      }
      await expect(store.sessions.getLogPage('', {})).rejects.toThrow(StoreValidationError);
    });
  });

  describe('list with search', () => {
    test('finds sessions by a part of their id or title, ASCII letters in either case', async () => {
      const marker = unique('Mark');
      const byId = await store.sessions.create({ id: `${marker}-Alpha`, title: 'plain' });
      const byTitle = await store.sessions.create({ id: unique(), title: `Trip to LISBON ${marker}` });
      await store.sessions.create({ id: unique(), title: 'unrelated' });
      const ids = async (search: string) => (await store.sessions.list({ search })).sessions.map((meta) => meta.id);
      expect((await ids(marker.toLowerCase())).sort()).toEqual([byTitle, byId].sort());
      expect(await ids(`${marker.toUpperCase()}-alpha`)).toEqual([byId]);
      expect(await ids(`lisbon ${marker.toLowerCase()}`)).toEqual([byTitle]);
      expect(await ids(`${marker}-nothing`)).toEqual([]);
    });

    test('%, _ and ! are matched as themselves', async () => {
      const marker = unique('wild');
      const percent = await store.sessions.create({ id: unique(), title: `${marker} 100% done` });
      const underscore = await store.sessions.create({ id: unique(), title: `${marker} snake_case` });
      const bang = await store.sessions.create({ id: unique(), title: `${marker} now!` });
      const decoy = await store.sessions.create({ id: unique(), title: `${marker} 100 done snakeXcase now` });
      const ids = async (search: string) => (await store.sessions.list({ search })).sessions.map((meta) => meta.id);
      expect(await ids(`${marker} 100%`)).toEqual([percent]);
      expect(await ids('% done')).toContain(percent);
      expect(await ids('% done')).not.toContain(decoy);
      expect(await ids(`${marker} snake_`)).toEqual([underscore]);
      expect(await ids(`${marker} now!`)).toEqual([bang]);
      expect(await ids(`${marker}!`)).toEqual([]);
    });

    test('pages through the matches only, with the other filters', async () => {
      const marker = unique('paged');
      const parent = await store.sessions.create({ id: unique(), tenantId: 'search-tenant' });
      const matches: string[] = [];
      for (let i = 0; i < 5; i++) {
        matches.unshift(await store.sessions.create({ id: `${marker}-${i}`, tenantId: 'search-tenant', parentId: parent }));
        await store.sessions.create({ id: unique(), tenantId: 'search-tenant', parentId: parent });
      }
      await store.sessions.create({ id: `${marker}-root`, tenantId: 'search-tenant' });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.sessions.list({ search: marker, parentId: parent, limit: 2, cursor });
        seen.push(...page.sessions.map((meta) => meta.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(seen).toEqual(matches);
    });

    test("a tenant's search never finds another tenant's sessions", async () => {
      const marker = unique('tenanted');
      const acme = store.tenants.forTenant(unique('acme'));
      const globex = store.tenants.forTenant(unique('globex'));
      const mine = await acme.sessions.create({ id: `${marker}-acme`, title: marker });
      await globex.sessions.create({ id: `${marker}-globex`, title: marker });
      expect((await acme.sessions.list({ search: marker })).sessions.map((meta) => meta.id)).toEqual([mine]);
    });

    test('a bad search is refused', async () => {
      for (const search of ['', 'x'.repeat(201), 'a\u0000b', '\ud800', 42, null]) {
        await expect(store.sessions.list({ search } as never)).rejects.toThrow(StoreValidationError);
      }
      expect((await store.sessions.list({ search: 'x'.repeat(200) })).sessions).toEqual([]);
    });
  });

  describe('search and cursors at their edges', () => {
    // The pattern is lowered by the database's LOWER, as the columns: lowered by JavaScript, it missed
    // text written exactly as stored (SQLite folds ASCII only; MariaDB and PostgreSQL differ on ẞ and İ).
    test.each(['Éclair', 'ÉCLAIR AU', 'Ölpreis', 'ẞtraße', 'İstanbul', 'ДОМ'])(
      'a search for %s finds the session whose title holds it verbatim',
      async (text) => {
        const marker = unique('verbatim');
        const id = await store.sessions.create({ id: unique('v'), title: `${marker} ${text} ${marker}` });
        expect((await store.sessions.list({ search: text })).sessions.map((meta) => meta.id)).toContain(id);
        expect((await store.sessions.list({ search: `${marker} ${text}` })).sessions.map((meta) => meta.id)).toEqual([id]);
      },
    );

    test('a backslash in a search is matched as itself', async () => {
      const marker = unique('slash');
      const id = await store.sessions.create({ id: `${marker}\\x`, title: 'C:\\temp\\n' });
      expect((await store.sessions.list({ search: `${marker}\\` })).sessions.map((meta) => meta.id)).toEqual([id]);
      expect((await store.sessions.list({ search: `${marker}\\\\` })).sessions).toEqual([]);
    });

    // A seq no log can hold (the column is a 32-bit INTEGER) is a cursor this store never handed out: refused as forged alike
    // on every database, not an empty page on SQLite and MariaDB and a database refusal (logged) on PostgreSQL.
    test.each([2 ** 31, 2 ** 53 - 1])('a log cursor naming seq %d is refused as forged', async (seq) => {
      const id = await store.sessions.create({ id: unique('forged') });
      await store.messages.append(id, { role: 'user', content: 'hi' });
      const cursor = Buffer.from(JSON.stringify(['l', id, seq])).toString('base64url');
      await expect(store.sessions.getLogPage(id, { cursor })).rejects.toThrow(new StoreValidationError('cursor is not a log cursor this store handed out'));
    });
  });
};
