// A fork whose plan copies no log rows (a source whose history is all summary) is still checked against
// its source when it writes: a source deleted, or its tenant erased, between the fork's read and its write
// is not forked. Drives forkSession on Prisma's path (as in the application's transaction) with a
// StoreDatabase whose first write runs the racing deletion first (the interleaving two apps produce).
import { forkSession } from '../../src/stores/sessions/session-forks.js';
import { StoreNotFoundError } from '../../src/index.js';
import type { StoreDatabase } from '../../src/engine/database.js';
import { storeOn, OPENERS } from '../support/openers.js';
import { maintenanceApp, type MaintenanceApp } from '../support/maintenance.js';

const user = (text: string) => ({ role: 'user' as const, content: text });

describe('[SQLite] a fork racing the deletion of its source', () => {
  const store = storeOn(OPENERS[0]);
  let ops: MaintenanceApp;
  beforeAll(async () => {
    ops = await maintenanceApp(store.url);
  });
  afterAll(() => ops?.close());

  function racing(before: () => Promise<unknown>): StoreDatabase {
    let raced = false;
    return new Proxy(ops.db, {
      get(target, key) {
        // Prisma's path (fork-on-driver-races.test.ts races the driver's).
        if (key === 'fastPaths') return async () => undefined;
        const value = Reflect.get(target, key, target);
        if (key === 'write')
          return async (...args: unknown[]) => {
            if (!raced) {
              raced = true;
              await before();
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  test('a source deleted between the read and the write is not forked: not found', async () => {
    const { sessions, messages, transcripts } = store.tenants.forTenant('race-t');
    const source = await sessions.create({ id: 'race-compacted', title: 'secret title' });
    await messages.appendMany(source, [user('a'), user('b')]);
    await messages.appendCompaction(source, [user('summary of a secret')], 2, 0);
    await expect(
      forkSession(
        racing(() => transcripts.deleteTranscript(source)),
        source,
        { id: 'race-fork-of-deleted', unansweredToolCalls: 'refuse' },
        'race-t',
      ),
    ).rejects.toThrow(StoreNotFoundError);
    expect(await store.sessions.get('race-fork-of-deleted')).toBeNull();
  });

  test('a fork in flight when its tenant is erased leaves the tenant nothing', async () => {
    const { sessions, messages } = store.tenants.forTenant('race-erased');
    const source = await sessions.create({ id: 'race-erased-src' });
    await messages.appendMany(source, [user('a'), user('b')]);
    await messages.appendCompaction(source, [user('summary of erased data')], 2, 0);
    await forkSession(
      racing(() => ops.maintenance.eraseTenant('race-erased')),
      source,
      { id: 'race-erased-fork', unansweredToolCalls: 'refuse' },
      'race-erased',
    ).catch(() => undefined);
    expect(await store.sessions.list({ tenantId: 'race-erased' })).toMatchObject({ sessions: [] });
  });
});
