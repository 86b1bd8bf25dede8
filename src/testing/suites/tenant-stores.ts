// TenantStores on every backend: a tenant's stores see its own sessions only; a
// missing session is not found and not created; ids, imports, lists and deletes
// never reach another tenant's sessions. (Each method on another tenant's
// session: tenantProbes.)
import { StoreConflictError, StoreNotFoundError, StoreValidationError, type ScopedStores, type SessionMeta } from '../../index.js';
import { boundaryCount } from '../footprint.js';
import type { Suite } from '../kit.js';
import { tenantViews, type View } from './tenant-views.js';

/** `TenantStores`: a tenant's stores see its own sessions only; lists, imports, ids and deletes never reach another tenant's. */
export const tenantStores: Suite = ({ store, describe, test, expect }) => {
  const { unique, user, texts, tenantPair, jsonlOf, outcomeOf, rowsOf, expectNoRows, stateOf, expectCountersUntouched, seed, CALL, INTERRUPTED } = tenantViews(
    store,
    expect,
  );

  describe('forTenant', () => {
    test.each([
      ['an empty tenant id', ''],
      ['a tenant id of 192 characters', 't'.repeat(192)],
      ['a tenant id that is not a string', 42],
      ['null', null],
      ['undefined', undefined],
      ['a tenant id ending with a space', 'acme '],
      ['a tenant id with a lone surrogate', 'acme\ud800'],
      ['a tenant id with a NUL character', 'ac\u0000me'],
    ])('rejects %s with a validation error', (_name, tenantId) => {
      expect(() => store.tenants.forTenant(tenantId as never)).toThrow(StoreValidationError);
    });

    test('takes a tenant id of 191 characters and says whose stores they are', async () => {
      const tenantId = 'é'.repeat(191);
      const scoped = store.tenants.forTenant(tenantId);
      expect(scoped.tenantId).toBe(tenantId);
      const id = await scoped.sessions.create();
      expect((await store.sessions.get(id))?.tenantId).toBe(tenantId);
    });

    test('tenants that differ only in case are different tenants', async () => {
      const name = unique('Acme');
      const upper = store.tenants.forTenant(name.toUpperCase());
      const lower = store.tenants.forTenant(name.toLowerCase());
      const id = await upper.sessions.create();
      await upper.messages.append(id, user('upper'));
      expect(await lower.sessions.get(id)).toBeNull();
      await expect(lower.messages.getHistory(id)).rejects.toThrow(StoreNotFoundError);
      expect((await lower.sessions.list()).sessions).toEqual([]);
    });
  });

  describe("the tenant's own sessions", () => {
    test('read and write exactly as through the unscoped stores', async () => {
      const { a } = tenantPair();
      const { root, child, ids } = await seed(a);
      expect(await stateOf(a, ids)).toEqual(await stateOf(store, ids));
      expect(await a.transcripts.getSubsessions(root)).toEqual([child]);
      expect((await a.sessions.get(child))?.parentId).toBe(root);
      expect(texts(await a.messages.getHistory(root))).toEqual(['summary of m1-m2', 'm3', 'm4', CALL.content, INTERRUPTED.content]);
      expect(await a.messages.getHistoryPage(root, { limit: 100 })).toEqual({
        messages: await store.messages.getHistory(root),
        nextCursor: null,
        startSeq: (await store.messages.getHistoryPage(root)).startSeq,
      });
      expect(await a.messages.getTranscriptPage(root, { limit: 100 })).toEqual({ messages: await store.messages.getTranscript(root), nextCursor: null });
    });

    test('subsessions between two of its sessions are registered as usual', async () => {
      const { a } = tenantPair();
      const [parent, child, other] = [await a.sessions.create(), await a.sessions.create(), await a.sessions.create()];
      await a.transcripts.addSubsession(parent, child);
      await a.transcripts.saveTranscript(other, { messages: [user('x')], subsessions: [parent] });
      expect(await a.transcripts.getSubsessions(parent)).toEqual([child]);
      expect(await a.transcripts.getSubsessions(other)).toEqual([parent]);
      expect(await a.transcripts.deleteTranscript(other)).toBe(3);
    });
  });

  describe('a session that does not exist', () => {
    const writes: [string, (s: ScopedStores, id: string) => Promise<unknown>][] = [
      ['messages.append', (s, id) => s.messages.append(id, user('x'))],
      ['messages.appendMany', (s, id) => s.messages.appendMany(id, [user('x')])],
      ['messages.replaceHistory', (s, id) => s.messages.replaceHistory(id, [user('x')])],
      ['messages.appendCompaction', (s, id) => s.messages.appendCompaction(id, [user('x')], 0, 0)],
      ['messages.appendRepair', (s, id) => s.messages.appendRepair(id, user('x'), [user('x')], 0)],
      ['messages.clear', (s, id) => s.messages.clear(id)],
      ['transcripts.saveTranscript', (s, id) => s.transcripts.saveTranscript(id, { messages: [user('x')] })],
      ['transcripts.appendMessage', (s, id) => s.transcripts.appendMessage(id, user('x'))],
      ['transcripts.appendMessages', (s, id) => s.transcripts.appendMessages(id, [user('x')])],
      ['transcripts.addSubsession as the parent', async (s, id) => s.transcripts.addSubsession(id, await s.sessions.create())],
      ['transcripts.addSubsession as the child', async (s, id) => s.transcripts.addSubsession(await s.sessions.create(), id)],
      ['transcripts.addSubsession of two missing sessions', (s, id) => s.transcripts.addSubsession(id, `${id}-child`)],
      ['sessions.append', (s, id) => s.sessions.append(id, user('x'))],
      ['sessions.update', (s, id) => s.sessions.update(id, { title: 'x' })],
    ];

    test.each(writes)('%s is not found and does not create it, unlike the unscoped stores', async (_name, write) => {
      const { a } = tenantPair();
      const id = unique('missing');
      await expect(write(a, id)).rejects.toThrow(StoreNotFoundError);
      expect(await a.sessions.get(id)).toBeNull();
      expect(await store.sessions.get(id)).toBeNull();
      await expectNoRows(id);
      await expectNoRows(`${id}-child`);
    });

    test('the unscoped stores, by contrast, create it (so the test above tells the two apart)', async () => {
      const id = unique('missing');
      await store.messages.append(id, user('x'));
      expect(await store.sessions.get(id)).toMatchObject({ id, tenantId: null });
    });

    test('reads are not found too, where the unscoped stores answer [] or 0', async () => {
      const { a } = tenantPair();
      const id = unique('missing');
      expect(await store.messages.getHistory(id)).toEqual([]);
      await expect(a.messages.getHistory(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.messages.getTranscript(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.messages.count(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.messages.getRepairs(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.messages.getHistoryPage(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.messages.getTranscriptPage(id)).rejects.toThrow(StoreNotFoundError);
      await expect(a.transcripts.getSubsessions(id)).rejects.toThrow(StoreNotFoundError);
      expect(await a.transcripts.getTranscript(id)).toBeNull();
      expect(await a.transcripts.removeTranscript(id)).toBe(false);
      expect(await a.transcripts.deleteTranscript(id)).toBe(0);
      await expectNoRows(id);
    });
  });

  describe('create and importJsonl', () => {
    test("a taken id answers one sentence, whoever holds it and whether it was deleted, and B's probe writes nothing of A's", async () => {
      const { a, b } = tenantPair();
      const { root, ids } = await seed(a);
      const gone = await a.sessions.create({ id: unique('gone') });
      await a.transcripts.deleteTranscript(gone);
      const before = await stateOf(a, ids);
      const rowBefore = await rowsOf(root);
      // The largest span a file may give (seq 1,000,000,000) and a small one answer alike: nothing runs on A's row first.
      const importOf = (seq: number) =>
        JSON.stringify({ type: 'session', version: 1, id: 'w', createdAt: '2026-01-01T00:00:00.000Z' }) +
        '\n' +
        JSON.stringify({ type: 'message', seq, message: { role: 'user', content: 'x', createdAt: '2026-01-01T00:00:00.000Z' } }) +
        '\n';
      for (const id of [root, gone]) {
        const answers = [
          await outcomeOf(() => b.sessions.create({ id }), { [id]: '<id>' }),
          await outcomeOf(() => b.sessions.importJsonl(importOf(1), { sessionId: id }), { [id]: '<id>' }),
          await outcomeOf(() => b.sessions.importJsonl(importOf(1_000_000_000), { sessionId: id }), { [id]: '<id>' }),
          await outcomeOf(
            () => b.sessions.importJsonl(importOf(1) + JSON.stringify({ type: 'subsession', childId: id }) + '\n', { sessionId: unique('mine') }),
            { [id]: '<id>' },
          ),
        ];
        expect(answers).toEqual(Array(4).fill({ threw: 'StoreConflictError', message: 'session id <id> is not available' }));
      }
      expect(await stateOf(a, ids)).toEqual(before);
      expect(await rowsOf(root)).toEqual(rowBefore);
      await expectCountersUntouched(a, before);
    });

    const header = (fields: Record<string, unknown>) =>
      `${JSON.stringify({ type: 'session', version: 1, id: unique('imported'), tenantId: null, title: 'imported', metadata: null, createdAt: '2026-01-01T00:00:00.000Z', ...fields })}\n`;
    const messageLine = (seq: number, text: string) =>
      `${JSON.stringify({ type: 'message', seq, message: { role: 'user', content: text, createdAt: '2026-01-01T00:00:01.000Z' } })}\n`;
    const subsessionLine = (childId: string) => `${JSON.stringify({ type: 'subsession', childId })}\n`;

    test('create puts the session in the tenant', async () => {
      const { b } = tenantPair();
      const id = await b.sessions.create({ title: 'mine', metadata: { k: 1 } });
      const same = await b.sessions.create({ tenantId: b.tenantId });
      const child = await b.sessions.create({ parentId: id });
      for (const session of [id, same, child]) {
        expect((await b.sessions.get(session))?.tenantId).toBe(b.tenantId);
        expect((await store.sessions.get(session))?.tenantId).toBe(b.tenantId);
      }
      expect((await b.sessions.get(child))?.parentId).toBe(id);
      expect((await store.sessions.list({ tenantId: b.tenantId })).sessions.map((s) => s.id).sort()).toEqual([id, same, child].sort());
    });

    test.each([
      ['another tenant', (a: ScopedStores) => a.tenantId],
      ['the same tenant in another case', (_a: ScopedStores, b: ScopedStores) => b.tenantId.toUpperCase()],
    ])('create with the tenant id of %s is a validation error and creates nothing', async (_name, tenantOf) => {
      const { a, b } = tenantPair();
      const id = unique('refused');
      await expect(b.sessions.create({ id, tenantId: tenantOf(a, b) })).rejects.toThrow(StoreValidationError);
      await expectNoRows(id);
    });

    test("create with the id of another tenant's session is a conflict, as any duplicate id, and changes nothing", async () => {
      const { a, b } = tenantPair();
      const { root, ids } = await seed(a);
      const before = await stateOf(a, ids);
      await expect(b.sessions.create({ id: root, title: 'B' })).rejects.toThrow(StoreConflictError);
      expect(await stateOf(a, ids)).toEqual(before);
      await expectCountersUntouched(a, before);
    });

    test('importJsonl puts the session in the tenant, into a new session or an empty one of its own', async () => {
      const { b } = tenantPair();
      const own = header({ tenantId: b.tenantId }) + messageLine(1, 'one');
      const { sessionId } = await b.sessions.importJsonl(own);
      expect(await store.sessions.get(sessionId)).toMatchObject({ tenantId: b.tenantId, title: 'imported' });
      expect(texts(await b.messages.getHistory(sessionId))).toEqual(['one']);

      const empty = await b.sessions.create();
      await b.sessions.importJsonl(own, { sessionId: empty });
      expect((await store.sessions.get(empty))?.tenantId).toBe(b.tenantId);
      expect(texts(await b.messages.getHistory(empty))).toEqual(['one']);
    });

    test("importJsonl puts the session in the importer's tenant whatever its header names, even for A's own export", async () => {
      const { a, b } = tenantPair();
      const { root, ids } = await seed(a);
      const before = await stateOf(a, ids);
      const foreign = header({ tenantId: a.tenantId }) + messageLine(1, 'one');
      const target = unique('target');
      await b.sessions.importJsonl(foreign, { sessionId: target });
      expect((await store.sessions.get(target))?.tenantId).toBe(b.tenantId);
      expect(await a.sessions.get(target)).toBeNull();
      const exported = (await jsonlOf(a, root))
        .split('\n')
        .filter((line) => !line.startsWith('{"type":"subsession"'))
        .join('\n');
      const copy = unique('copy');
      await b.sessions.importJsonl(exported, { sessionId: copy });
      expect((await store.sessions.get(copy))?.tenantId).toBe(b.tenantId);
      expect(await stateOf(a, ids)).toEqual(before);
      await expectCountersUntouched(a, before);
    });

    test('importJsonl of a header without a tenant takes the session into the tenant', async () => {
      const { b } = tenantPair();
      const target = unique('target');
      await b.sessions.importJsonl(header({ tenantId: null }) + messageLine(1, 'one'), { sessionId: target });
      expect((await store.sessions.get(target))?.tenantId).toBe(b.tenantId);
    });

    test("importJsonl into another tenant's empty session imports nothing and leaves it A's", async () => {
      const { a, b } = tenantPair();
      const empty = await a.sessions.create({ title: 'empty' });
      const before = await stateOf(a, [empty]);
      const outcome = await outcomeOf(() => b.sessions.importJsonl(header({ tenantId: b.tenantId }) + messageLine(1, 'B'), { sessionId: empty }), {});
      // The id is taken, so it cannot be a new session; it is not B's, so B cannot import into it.
      expect(outcome).toMatchObject({ threw: expect.stringMatching(/^(StoreConflictError|StoreNotFoundError)$/) });
      expect(await stateOf(a, [empty])).toEqual(before);
      expect(await store.messages.getTranscript(empty)).toEqual([]);
      await expectCountersUntouched(a, before);
    });

    test('importJsonl with a subsession line naming a missing session never leaves it outside the tenant', async () => {
      // Unscoped, a missing subsession is created empty; scoped, either it is created in the tenant or the import is refused.
      const { b } = tenantPair();
      const [target, child] = [unique('target'), unique('missing-child')];
      const jsonl = header({ tenantId: b.tenantId }) + messageLine(1, 'one') + subsessionLine(child);
      const outcome = await outcomeOf(() => b.sessions.importJsonl(jsonl, { sessionId: target }), {});
      if ('threw' in outcome) {
        expect(outcome.threw).toBe('StoreNotFoundError');
        await expectNoRows(target);
        await expectNoRows(child);
      } else {
        expect(await store.sessions.get(child)).toMatchObject({ tenantId: b.tenantId, parentId: target });
        expect(await b.transcripts.getSubsessions(target)).toEqual([child]);
      }
    });

    test.each([
      [
        "another tenant's session",
        async () => {
          const { a, b } = tenantPair();
          const { child, root, ids } = await seed(a);
          return { b, owner: a as View, ids, subsession: root, alsoTried: child };
        },
      ],
      [
        'a session of no tenant',
        async () => {
          const { b } = tenantPair();
          const { root, child, ids } = await seed(store);
          return { b, owner: store as View, ids, subsession: root, alsoTried: child };
        },
      ],
    ])('importJsonl with a subsession line naming %s imports nothing and changes nothing', async (_name, arrange) => {
      const { b, owner, ids, subsession, alsoTried } = await arrange();
      const before = await stateOf(owner, ids);
      for (const child of [subsession, alsoTried]) {
        const target = unique('target');
        const jsonl = header({ tenantId: b.tenantId }) + messageLine(1, 'one') + subsessionLine(child);
        const outcome = await outcomeOf(() => b.sessions.importJsonl(jsonl, { sessionId: target }), {});
        expect(outcome).toMatchObject({ threw: expect.stringMatching(/^Store\w+Error$/) });
        await expectNoRows(target);
      }
      expect(await stateOf(owner, ids)).toEqual(before);
      await expectCountersUntouched(owner, before);
    });
  });

  describe('list', () => {
    test("never another tenant's sessions, nor those of no tenant, with no filter and across pages", async () => {
      const { a, b } = tenantPair();
      const mine: string[] = [];
      // Interleaved in time, so that any page would hold the others' sessions if the tenant were not a condition.
      for (let i = 0; i < 7; i++) {
        await a.sessions.create({ title: `a${i}` });
        mine.push(await b.sessions.create({ title: `b${i}` }));
        await store.sessions.create({ title: `none${i}` });
      }
      const all = await b.sessions.list();
      expect(all.sessions.map((s) => s.id).sort()).toEqual([...mine].sort());
      expect(all.nextCursor).toBeNull();

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await b.sessions.list({ limit: 2, cursor });
        expect(page.sessions.length).toBeLessThanOrEqual(2);
        seen.push(...page.sessions.map((s) => s.id));
        cursor = page.nextCursor ?? undefined;
        expect(++pages).toBeLessThanOrEqual(4);
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual([...mine].sort());
    });

    test("asking for another tenant's sessions, by tenant, parent or cursor, never shows them", async () => {
      const { a, b } = tenantPair();
      const { root, ids } = await seed(a);
      for (let i = 0; i < 3; i++) ids.push(await a.sessions.create());
      const mine = await b.sessions.create();
      const theirCursor = (await a.sessions.list({ limit: 1 })).nextCursor!;
      expect(theirCursor).not.toBeNull();
      for (const options of [{ tenantId: a.tenantId }, { parentId: root }, { cursor: theirCursor }, { tenantId: a.tenantId, parentId: root }]) {
        const outcome = await outcomeOf(() => b.sessions.list(options), {});
        if ('threw' in outcome) expect(outcome.threw).toBe('StoreValidationError');
        else expect((outcome.value as { sessions: SessionMeta[] }).sessions.map((s) => s.id).filter((id) => id !== mine)).toEqual([]);
      }
    });
  });

  describe('deleteTranscript and removeTranscript', () => {
    test("B's cascade delete of A's root, or of any session of A's tree, deletes nothing", async () => {
      const { a, b } = tenantPair();
      const { root, child } = await seed(a);
      const grandchildren = [await a.sessions.create({ parentId: child }), await a.sessions.create({ parentId: child })];
      for (const id of grandchildren) await a.messages.append(id, user('gc'));
      const ids = [root, child, ...grandchildren];
      const before = await stateOf(a, ids);

      for (const id of ids) {
        expect(await b.transcripts.deleteTranscript(id)).toBe(0);
        expect(await b.transcripts.removeTranscript(id)).toBe(false);
      }
      expect(await stateOf(a, ids)).toEqual(before);
      await expectCountersUntouched(a, before);
      // The owner's delete still takes the whole tree.
      expect(await a.transcripts.deleteTranscript(root)).toBe(4);
    });
  });

  describe('concurrency', () => {
    test("B hammering A's sessions with every kind of write while A appends leaves A's log exact", async () => {
      const { a, b } = tenantPair();
      const ids = [await a.sessions.create({ title: 'first' }), await a.sessions.create({ title: 'second' })];
      const mine = await b.sessions.create();
      const metaBefore = await Promise.all(ids.map((id) => a.sessions.get(id)));
      const attacks = (id: string): (() => Promise<unknown>)[] => [
        () => b.messages.append(id, user('B')),
        () => b.messages.appendMany(id, [user('B1'), user('B2')]),
        () => b.messages.replaceHistory(id, [user('B')]),
        () => b.messages.clear(id),
        () => b.messages.appendCompaction(id, [user('B summary')], 0, 0),
        () => b.messages.appendRepair(id, user('B repair'), [], 0),
        () => b.transcripts.saveTranscript(id, { messages: [user('B')] }),
        () => b.transcripts.appendMessage(id, user('B')),
        () => b.transcripts.appendMessages(id, [user('B')]),
        () => b.transcripts.addSubsession(mine, id),
        () => b.transcripts.addSubsession(id, mine),
        () => b.transcripts.deleteTranscript(id),
        () => b.transcripts.removeTranscript(id),
        () => b.sessions.append(id, user('B')),
        () => b.sessions.append(id, { type: 'B' }),
        () => b.sessions.update(id, { title: 'B', metadata: null }),
      ];
      const PER_SESSION = 40;
      const calls: { by: 'A' | 'B'; run: () => Promise<unknown> }[] = [];
      for (let round = 0; round < PER_SESSION; round++) {
        for (const id of ids) {
          calls.push({ by: 'A', run: () => a.messages.append(id, user(`A${round}`)) });
          const list = attacks(id);
          calls.push({ by: 'B', run: list[round % list.length] });
        }
      }
      const results = await Promise.allSettled(calls.map((call) => call.run()));

      results.forEach((result, i) => {
        if (calls[i].by === 'A') expect(result.status).toBe('fulfilled');
        else if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StoreNotFoundError);
        else expect([0, false]).toContain(result.value);
      });
      for (const [i, id] of ids.entries()) {
        const transcript = await a.messages.getTranscript(id);
        expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: PER_SESSION }, (_, k) => k + 1));
        expect(new Set(texts(transcript))).toEqual(new Set(Array.from({ length: PER_SESSION }, (_, k) => `A${k}`)));
        expect(await a.messages.getHistory(id)).toEqual(transcript);
        expect(await a.messages.getRepairs(id)).toEqual([]);
        expect(await a.sessions.load(id)).toEqual(transcript);
        expect(await a.transcripts.getSubsessions(id)).toEqual([]);
        const meta = await a.sessions.get(id);
        expect(meta).toMatchObject({ title: metaBefore[i]!.title, metadata: null, parentId: null, tenantId: a.tenantId });
        expect(await boundaryCount(a, id)).toBe(0);
      }
      expect(await b.transcripts.getSubsessions(mine)).toEqual([]);
      expect((await b.sessions.get(mine))?.parentId).toBeNull();
      // B's deletes left no tombstone on A's sessions: the owner's own delete writes one, and would find it taken.
      for (const id of ids) expect(await a.transcripts.deleteTranscript(id)).toBe(1);
    });

    test('B writing to an id while A creates it: A gets the session, empty, and B only not-found', async () => {
      const { a, b } = tenantPair();
      const mine = await b.sessions.create();
      for (let round = 0; round < 5; round++) {
        const id = unique('contested');
        const attempts = [
          () => b.messages.append(id, user('B')),
          () => b.messages.appendMany(id, [user('B')]),
          () => b.messages.replaceHistory(id, [user('B')]),
          () => b.transcripts.saveTranscript(id, { messages: [user('B')] }),
          () => b.transcripts.appendMessage(id, user('B')),
          () => b.transcripts.addSubsession(mine, id),
          () => b.transcripts.addSubsession(id, `${id}-child`),
          () => b.sessions.append(id, user('B')),
        ];
        const attacks = Array.from({ length: 24 }, (_, i) => attempts[i % attempts.length]);
        const [created, ...others] = await Promise.allSettled([
          // Let some of B's writes go first: the race is about the moment the session appears.
          new Promise((resolve) => setTimeout(resolve, round)).then(() => a.sessions.create({ id, title: 'A' })),
          ...attacks.map((attack) => attack()),
        ]);
        expect(created).toEqual({ status: 'fulfilled', value: id });
        for (const other of others) {
          expect(other.status).toBe('rejected');
          expect((other as PromiseRejectedResult).reason).toBeInstanceOf(StoreNotFoundError);
        }
        expect(await a.sessions.load(id)).toEqual([]);
        expect(await a.sessions.get(id)).toMatchObject({ id, title: 'A', tenantId: a.tenantId, parentId: null });
        expect(await a.transcripts.getSubsessions(id)).toEqual([]);
        await expectNoRows(`${id}-child`);
      }
      expect(await b.transcripts.getSubsessions(mine)).toEqual([]);
    });
  });
};
