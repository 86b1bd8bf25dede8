// Review of #18 (hostile): what list's search and getLogPage's cursors must also do, on every backend.
import { randomUUID } from 'node:crypto';
import { StoreValidationError } from '../../src/index.js';
import { eachBackend, storeOn } from '../support/openers.js';

eachBackend((backend) => {
  const store = storeOn(backend);
  const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

  // The pattern is lowercased by JavaScript, the columns by the database's LOWER: SQLite's folds ASCII only,
  // MariaDB's and PostgreSQL's differ from JavaScript's on letters like ẞ and İ. Text must always find itself.
  test.each(['Éclair', 'ÉCLAIR AU', 'Ölpreis', 'ẞtraße', 'İstanbul', 'ДОМ'])('a search for %s finds the session whose title holds it verbatim', async (text) => {
    const marker = unique('verbatim');
    const id = await store.sessions.create({ id: unique('v'), title: `${marker} ${text} ${marker}` });
    expect((await store.sessions.list({ search: text })).sessions.map((meta) => meta.id)).toContain(id);
    expect((await store.sessions.list({ search: `${marker} ${text}` })).sessions.map((meta) => meta.id)).toEqual([id]);
  });

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
