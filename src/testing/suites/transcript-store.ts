// TranscriptStore on every backend: transcripts, the subsession graph, subtree deletes.
// (A delete that fails half-way, which needs a fault injected into the database, is in test/internals/subtree-delete-failure.test.ts.)
import { StoreConflictError, StoreNotFoundError, StoreValidationError, type MessageInput } from '../../index.js';
import { footprintOf } from '../footprint.js';
import type { Suite } from '../kit.js';
import { threeLevels } from '../trees.js';

/** TranscriptStore: transcripts, the subsession graph, and subtree deletes. */
export const transcriptStore: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const session = (name = 's') => `${name}-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);

  /** Everything the stores hold for these sessions. */
  const rowsOf = (ids: string[]) => footprintOf(store, ids);

  /** The subsession graph around these sessions: each one's parent and children. */
  const graphOf = async (ids: string[]) =>
    Promise.all(
      ids.map(async (id) => ({ id, parent: (await store.sessions.get(id))?.parentId ?? null, children: await store.transcripts.getSubsessions(id) })),
    );

  describe('saveTranscript and getTranscript', () => {
    test('a saved transcript reads back; an unknown session is null', async () => {
      const id = session();
      const [a, b] = [session('child'), session('child')];
      const saved = await store.transcripts.saveTranscript(id, {
        messages: [user('hi'), { role: 'assistant', content: 'hello' }],
        subsessions: [a, b],
        metadata: { agent: 'x' },
      });
      expect(await store.transcripts.getTranscript(id)).toEqual(saved);
      expect(saved).toMatchObject({ subsessions: [a, b], metadata: { agent: 'x' } });
      expect(texts(saved.messages)).toEqual(['hi', 'hello']);
      expect(await store.transcripts.getTranscript(session())).toBeNull();
    });

    test('saving again replaces messages, subsessions and metadata atomically', async () => {
      const id = session();
      const [old, kept, added] = [session('c'), session('c'), session('c')];
      await store.transcripts.saveTranscript(id, { messages: [user('a'), user('b')], subsessions: [old, kept], metadata: { v: 1 } });
      await store.transcripts.saveTranscript(id, { messages: [user('c')], subsessions: [kept, added] });
      const transcript = await store.transcripts.getTranscript(id);
      expect(texts(transcript!.messages)).toEqual(['c']);
      expect(transcript).toMatchObject({ subsessions: [kept, added], metadata: null });
      expect((await store.sessions.get(old))?.parentId).toBeNull();
    });

    test('a save that cannot complete changes nothing', async () => {
      const id = session();
      const taken = session('taken');
      await store.transcripts.saveTranscript(id, { messages: [user('original')], metadata: { v: 1 } });
      await store.transcripts.addSubsession(session('other-parent'), taken);
      const before = await store.transcripts.getTranscript(id);

      await expect(store.transcripts.saveTranscript(id, { messages: [user('new')], subsessions: [taken] })).rejects.toThrow(StoreConflictError);
      await expect(store.transcripts.saveTranscript(id, { messages: [user('new'), { role: 'nobody' } as never] })).rejects.toThrow(StoreValidationError);
      await expect(store.transcripts.saveTranscript(id, { messages: [], extra: 1 } as never)).rejects.toThrow(StoreValidationError);
      expect(await store.transcripts.getTranscript(id)).toEqual(before);
    });
  });

  describe('appendMessage and appendMessages', () => {
    test('append to the transcript, creating the session if needed; a batch is all or none', async () => {
      const id = session();
      await store.transcripts.appendMessage(id, user('one'));
      await store.transcripts.appendMessages(id, [user('two'), user('three')]);
      await expect(store.transcripts.appendMessages(id, [user('four'), { role: 'user', content: 1 } as never])).rejects.toThrow(StoreValidationError);
      expect(texts((await store.transcripts.getTranscript(id))!.messages)).toEqual(['one', 'two', 'three']);
    });
  });

  describe('addSubsession', () => {
    test('50 concurrent registrations of different children on one parent leave exactly 50 edges', async () => {
      const parent = session('parent');
      const children = Array.from({ length: 50 }, () => session('child'));
      await Promise.all(children.map((child) => store.transcripts.addSubsession(parent, child)));
      const registered = await store.transcripts.getSubsessions(parent);
      expect(registered).toHaveLength(50);
      expect(new Set(registered)).toEqual(new Set(children));
    });

    test("a tree is one tenant's: a created session takes the other's tenant, two tenants' sessions are a conflict", async () => {
      const [parent, child, orphanParent] = [session('parent'), session('child'), session('new-parent')];
      await store.sessions.create({ id: parent, tenantId: 'acme' });
      await store.transcripts.addSubsession(parent, child);
      expect((await store.sessions.get(child))?.tenantId).toBe('acme');
      const loner = await store.sessions.create({ id: session('loner'), tenantId: 'globex' });
      await store.transcripts.addSubsession(orphanParent, loner);
      expect((await store.sessions.get(orphanParent))?.tenantId).toBe('globex');

      const [foreign, untenanted] = [
        await store.sessions.create({ id: session('foreign'), tenantId: 'globex' }),
        await store.sessions.create({ id: session('none') }),
      ];
      for (const other of [foreign, untenanted]) {
        await expect(store.transcripts.addSubsession(parent, other)).rejects.toThrow(StoreConflictError);
        await expect(store.transcripts.addSubsession(other, session('fresh'))).resolves.toBeUndefined();
      }
      expect(await store.transcripts.getSubsessions(parent)).toEqual([child]);
      expect((await store.sessions.get(foreign))?.parentId).toBeNull();
    });

    test('registering the same edge again, even concurrently, leaves one edge', async () => {
      const [parent, child] = [session('parent'), session('child')];
      await store.transcripts.addSubsession(parent, child);
      await Promise.all(Array.from({ length: 10 }, () => store.transcripts.addSubsession(parent, child)));
      expect(await store.transcripts.getSubsessions(parent)).toEqual([child]);
      expect((await store.sessions.get(child))?.parentId).toBe(parent);
    });

    test('children are listed in registration order; none gives an empty list', async () => {
      const parent = session('parent');
      const children = ['z', 'a', 'm'].map((name) => session(name));
      for (const child of children) await store.transcripts.addSubsession(parent, child);
      expect(await store.transcripts.getSubsessions(parent)).toEqual(children);
      expect(await store.transcripts.getSubsessions(session())).toEqual([]);
    });

    test.each([
      [
        'a second parent',
        async (a: string, b: string, c: string) => {
          await store.transcripts.addSubsession(a, b);
          return () => store.transcripts.addSubsession(c, b);
        },
      ],
      ['the session itself', async (a: string) => () => store.transcripts.addSubsession(a, a)],
      [
        'a two-session cycle',
        async (a: string, b: string) => {
          await store.transcripts.addSubsession(a, b);
          return () => store.transcripts.addSubsession(b, a);
        },
      ],
      [
        'a longer cycle',
        async (a: string, b: string, c: string) => {
          await store.transcripts.addSubsession(a, b);
          await store.transcripts.addSubsession(b, c);
          return () => store.transcripts.addSubsession(c, a);
        },
      ],
    ])('rejects %s with a conflict and changes nothing', async (_name, arrange) => {
      const [a, b, c] = [session('a'), session('b'), session('c')];
      const attempt = await arrange(a, b, c);
      const edgesBefore = await graphOf([a, b, c]);
      await expect(attempt()).rejects.toThrow(StoreConflictError);
      expect(await graphOf([a, b, c])).toEqual(edgesBefore);
    });

    test('concurrent registrations that together would close a cycle: at most one of them succeeds', async () => {
      const [a, b] = [session('a'), session('b')];
      const results = await Promise.allSettled([store.transcripts.addSubsession(a, b), store.transcripts.addSubsession(b, a)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
    });

    test('invalid ids are validation errors', async () => {
      await expect(store.transcripts.addSubsession('', 'x')).rejects.toThrow(StoreValidationError);
      await expect(store.transcripts.addSubsession('x', 'y'.repeat(192))).rejects.toThrow(StoreValidationError);
    });
  });

  describe('removeTranscript', () => {
    test('deletes that one session; its children become roots and its parent forgets it', async () => {
      const [grandparent, parent, child] = [session('gp'), session('p'), session('c')];
      await store.transcripts.addSubsession(grandparent, parent);
      await store.transcripts.addSubsession(parent, child);
      await store.transcripts.appendMessage(parent, user('p'));
      await store.transcripts.appendMessage(child, user('c'));

      expect(await store.transcripts.removeTranscript(parent)).toBe(true);
      expect(await store.transcripts.getTranscript(parent)).toBeNull();
      expect(await rowsOf([parent])).toEqual({ threads: 0, messages: 0, boundaries: 0, repairs: 0, edges: 0 });
      expect(await store.transcripts.getSubsessions(grandparent)).toEqual([]);
      expect(texts((await store.transcripts.getTranscript(child))!.messages)).toEqual(['c']);
      expect((await store.sessions.get(child))?.parentId).toBeNull();
      await expect(store.transcripts.appendMessage(parent, user('late'))).rejects.toThrow(StoreNotFoundError);
    });

    test('an unknown session: false, nothing changes', async () => {
      expect(await store.transcripts.removeTranscript(session())).toBe(false);
    });
  });

  describe('deleteTranscript', () => {
    test('removes every row of a 3-level subtree and nothing outside it', async () => {
      const tree = await threeLevels(store, session('tree'));
      const outside = await threeLevels(store, session('outside'));
      const above = session('above');
      await store.transcripts.addSubsession(above, tree.root);
      await store.messages.append(above, user('above'));
      const outsideBefore = await rowsOf(Object.values(outside));

      expect(await store.transcripts.deleteTranscript(tree.root)).toBe(6);
      expect(await rowsOf(Object.values(tree))).toEqual({ threads: 0, messages: 0, boundaries: 0, repairs: 0, edges: 0 });
      expect(await rowsOf(Object.values(outside))).toEqual(outsideBefore);
      expect(await store.transcripts.getSubsessions(above)).toEqual([]);
      expect(texts(await store.messages.getTranscript(above))).toEqual(['above']);
      for (const id of Object.values(tree)) await expect(store.messages.append(id, user('late'))).rejects.toThrow(StoreNotFoundError);
    });

    test('an unknown session deletes nothing', async () => {
      expect(await store.transcripts.deleteTranscript(session())).toBe(0);
    });
  });
};
