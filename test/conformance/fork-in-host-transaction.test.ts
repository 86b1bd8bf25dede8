// A fork in the application's READ COMMITTED transaction (PostgreSQL, MariaDB), where the fork's reads
// are separate statements, not one snapshot: an append that commits among them is in all of them or in
// none (the history checked for tool calls is the history copied). The interleaving is forced by a proxy
// over the application's transaction client that appends from outside it just before the fork reads.
import type { HistoryMessage, MessageStore, SessionStore } from '../../src/index.js';
import { eachDatabase, MARIADB, POSTGRESQL } from '../support/databases.js';
import { ownClientStores, type AppClient, type OwnClientStores } from '../support/openers.js';

eachDatabase(
  (database) => {
    describe("a fork in the application's READ COMMITTED transaction", () => {
      let prisma: AppClient;
      let messages: MessageStore;
      let sessions: SessionStore;
      let stores: OwnClientStores | undefined;
      beforeAll(async () => {
        stores = await ownClientStores(database);
        ({ prisma, messages, sessions } = stores);
      });
      afterAll(() => stores?.close());

      test('a tool result appended while it reads is copied and checked alike: the call is answered once', async () => {
        const source = await sessions.create({ id: 'rc-source' });
        await messages.appendMany(source, [
          { role: 'user', content: 'find' },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'search', input: {} }] },
        ]);
        let raced = false;
        const race = async () => {
          if (raced) return;
          raced = true;
          await messages.appendMany(source, [
            { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'search', output: { type: 'text', value: 'found' } }] },
            { role: 'assistant', content: 'done' },
          ]);
        };
        let outcome: unknown;
        await prisma.$transaction(
          async (tx) => {
            const wrapped = new Proxy(tx as object, {
              get(target, key) {
                const value = Reflect.get(target, key, target);
                if (key !== 'agentThread') return typeof value === 'function' ? value.bind(target) : value;
                return new Proxy(value as object, {
                  get(model, op) {
                    const fn = Reflect.get(model, op, model) as (...a: unknown[]) => Promise<unknown>;
                    if (op !== 'findUnique') return typeof fn === 'function' ? fn.bind(model) : fn;
                    return async (args: { select?: { lastSeq?: boolean } }) => {
                      if (args?.select?.lastSeq) await race();
                      return fn.call(model, args);
                    };
                  },
                });
              },
            });
            outcome = await sessions
              .withTransaction(wrapped)
              .fork(source, { id: 'rc-fork', unansweredToolCalls: 'repair' })
              .then(
                (meta) => meta,
                (error: unknown) => error,
              );
          },
          { isolationLevel: 'ReadCommitted' as 'Serializable' }, // the client is typed as SQLite's
        );
        expect(raced).toBe(true);
        const shape = (h: HistoryMessage[]) => h.map((m) => JSON.stringify(m.content));
        const forkHistory = (await sessions.get('rc-fork')) ? shape(await messages.getHistory('rc-fork')) : String(outcome);
        // The fork should be either the source before the append (repaired) or after it (whole, no repair): not both results of t1.
        expect(forkHistory).toEqual(shape(await messages.getHistory(source)));
      });
    });
  },
  [POSTGRESQL, MARIADB],
);
