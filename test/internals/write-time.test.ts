// A write transaction may run longer the more rows it writes: a long batch on
// the full path (through Prisma) is not cut off by the transaction timeout
// that bounds every other write. Here the timeout is made short, so that a few
// thousand rows outlast it, on SQLite, PostgreSQL and MariaDB.
import { StoreDatabase } from '../../src/engine/database.js';
import { PrismaMessageStore } from '../../src/stores/messages/message-store.service.js';
import { PrismaSessionStore } from '../../src/stores/sessions/session-store.service.js';
import { PrismaTranscriptStore } from '../../src/stores/transcripts/transcript-store.service.js';
import { loggedDatabase, type LoggedDatabase } from '../support/clients.js';
import { eachDatabase } from '../support/databases.js';

/** Shorter than writing ROWS rows takes, longer than any write of a few rows. */
const TIMEOUT_MS = 250;
const ROWS = 5_000;

eachDatabase((database) => {
  let logged: LoggedDatabase;
  let db: StoreDatabase;
  beforeAll(async () => {
    logged = await loggedDatabase(await database.freshUrl());
    db = new StoreDatabase(logged.client, logged.db.kit, { limits: { maxWait: 10_000, timeout: TIMEOUT_MS } });
  });
  afterAll(() => logged?.close());

  const batch = (tag: string) => Array.from({ length: ROWS }, (_, i) => ({ role: 'user' as const, content: `${tag} ${i}` }));

  const outlasts = `of ${ROWS} messages outlasts a ${TIMEOUT_MS} ms transaction timeout`;

  test(`appendMany ${outlasts}`, async () => {
    const messages = new PrismaMessageStore(db);
    await messages.appendMany('appended', batch('appended'));
    expect(await messages.count('appended')).toBe(ROWS);
  });

  test(`replaceHistory ${outlasts}`, async () => {
    const messages = new PrismaMessageStore(db);
    await messages.append('replaced', { role: 'user', content: 'old' });
    await messages.replaceHistory('replaced', batch('replaced'));
    expect((await messages.getTranscript('replaced')).map((m) => m.content)).toEqual(batch('replaced').map((m) => m.content));
  });

  test(`saveTranscript ${outlasts}`, async () => {
    const messages = new PrismaMessageStore(db);
    await new PrismaTranscriptStore(db, messages).saveTranscript('saved', { messages: batch('saved') });
    expect(await messages.count('saved')).toBe(ROWS);
  });

  test(`importJsonl ${outlasts}`, async () => {
    const jsonl = [
      { type: 'session', version: 1, id: 'imported', createdAt: '2026-01-02T03:04:05.006Z' },
      ...batch('imported').map((message, i) => ({ type: 'message', seq: i + 1, message })),
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join('');
    expect(await new PrismaSessionStore(db).importJsonl(jsonl)).toMatchObject({ sessionId: 'imported', entries: ROWS });
    expect(await new PrismaMessageStore(db).count('imported')).toBe(ROWS);
  });
});
