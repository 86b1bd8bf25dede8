// The Claude adapter's call order per key, beside an application's transaction joined
// through a TransactionHost (as nestjs-cls's is): appends in the transaction queue among
// themselves, appends outside it among themselves, so an outside append that waits for the
// transaction's lock never stands in the way of the transaction's next append.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { StoreModule } from '../../../src/index.js';
import { ClaudeSessionStore } from '../../../src/integrations/claude-agent-sdk/index.js';
import { eachDatabase } from '../../support/databases.js';
import { appClient, migratedUrl } from '../../support/openers.js';

eachDatabase((database) => {
  test('an append in the transaction, one outside it to the same key, then another in the transaction: all land, the outside one after the commit', async () => {
    const prisma = await appClient(database, await migratedUrl(database));
    const current = new AsyncLocalStorage<unknown>();
    const transactionHost = {
      isTransactionActive: () => current.getStore() !== undefined,
      get tx() {
        return current.getStore();
      },
    };
    const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma, transactionHost })], providers: [ClaudeSessionStore] }).compile();
    await app.init();
    try {
      const claude = app.get(ClaudeSessionStore);
      const k = { projectKey: 'p', sessionId: randomUUID() };
      await claude.append(k, [{ type: 'user', uuid: 'e0' }]);
      const started = Date.now();
      let outside: Promise<void> | undefined;
      await (prisma as unknown as { $transaction(work: (tx: unknown) => Promise<void>, options: object): Promise<void> }).$transaction(
        (tx) =>
          current.run(tx, async () => {
            await claude.append(k, [{ type: 'user', uuid: 'e1' }]);
            // Outside the transaction: it waits for the transaction's lock on the session.
            outside = current.exit(() => claude.append(k, [{ type: 'user', uuid: 'e2' }]));
            await new Promise((resolve) => setTimeout(resolve, 300));
            await claude.append(k, [{ type: 'user', uuid: 'e3' }]);
          }),
        { timeout: 20_000, maxWait: 10_000 },
      );
      await outside;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await claude.load(k))!.map((entry) => entry.uuid)).toEqual(['e0', 'e1', 'e3', 'e2']);
    } finally {
      await app.close();
      await prisma.$disconnect();
    }
  });
});
