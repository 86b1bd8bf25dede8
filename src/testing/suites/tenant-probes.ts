// TenantStores on every backend: another tenant's session, and a session of no
// tenant, answer each method of the three stores exactly as a missing session
// does, and the call changes nothing, of the owner's or of the caller's.
import { StoreNotFoundError, type ScopedStores, type SessionMeta } from '../../index.js';
import type { Suite } from '../kit.js';
import { tenantViews, type View } from './tenant-views.js';

/** Each method of the three stores, called on another tenant's session or on one of no tenant, answers as on a missing session and changes nothing. */
export const tenantProbes: Suite = ({ store, describe, test, expect }) => {
  const { unique, user, tenantPair, jsonlOf, outcomeOf, expectNoRows, stateOf, expectCountersUntouched, seed } = tenantViews(store, expect);

  type Context = { fresh: string; mine: string };
  type Probe = (b: ScopedStores, id: string, context: Context) => Promise<unknown>;
  const notFound = { threw: 'StoreNotFoundError' };
  /** Each method of the three stores, called by B on `id`; and what a missing session answers (undefined: only the comparison decides). */
  const probes: [string, Probe, object | undefined][] = [
    ['messages.append', (b, id) => b.messages.append(id, user('B')), notFound],
    ['messages.appendMany', (b, id) => b.messages.appendMany(id, [user('B1'), user('B2')]), notFound],
    ['messages.appendMany of nothing', (b, id) => b.messages.appendMany(id, []), notFound],
    ['messages.getHistory', (b, id) => b.messages.getHistory(id), notFound],
    ['messages.getHistoryPage', (b, id) => b.messages.getHistoryPage(id), notFound],
    ['messages.getHistoryPage with a limit', (b, id) => b.messages.getHistoryPage(id, { limit: 1 }), notFound],
    ['messages.count', (b, id) => b.messages.count(id), notFound],
    ['messages.clear', (b, id) => b.messages.clear(id), notFound],
    ['messages.replaceHistory', (b, id) => b.messages.replaceHistory(id, [user('B')]), notFound],
    ['messages.appendCompaction', (b, id) => b.messages.appendCompaction(id, [user('B summary')], 0, 0), notFound],
    ['messages.appendCompaction of a source only the owner has', (b, id) => b.messages.appendCompaction(id, [user('B summary')], 1, 0), notFound],
    ['messages.appendRepair', (b, id) => b.messages.appendRepair(id, user('B repair'), [user('B')], 0), notFound],
    ['messages.getRepairs', (b, id) => b.messages.getRepairs(id), notFound],
    ['messages.getTranscript', (b, id) => b.messages.getTranscript(id), notFound],
    ['messages.getTranscriptPage', (b, id) => b.messages.getTranscriptPage(id), notFound],
    ['transcripts.saveTranscript', (b, id) => b.transcripts.saveTranscript(id, { messages: [user('B')], metadata: { by: 'B' } }), notFound],
    ['transcripts.getTranscript', (b, id) => b.transcripts.getTranscript(id), { value: null }],
    ['transcripts.removeTranscript', (b, id) => b.transcripts.removeTranscript(id), { value: false }],
    ['transcripts.appendMessage', (b, id) => b.transcripts.appendMessage(id, user('B')), notFound],
    ['transcripts.appendMessages', (b, id) => b.transcripts.appendMessages(id, [user('B1'), user('B2')]), notFound],
    ['transcripts.addSubsession with it as the parent', (b, id, { mine }) => b.transcripts.addSubsession(id, mine), notFound],
    ['transcripts.addSubsession with it as the child', (b, id, { mine }) => b.transcripts.addSubsession(mine, id), notFound],
    ['transcripts.addSubsession of a missing child under it', (b, id, { fresh }) => b.transcripts.addSubsession(id, fresh), notFound],
    [
      'transcripts.saveTranscript with it as a subsession',
      (b, id, { mine }) => b.transcripts.saveTranscript(mine, { messages: [user('B')], subsessions: [id] }),
      notFound,
    ],
    ['transcripts.getSubsessions', (b, id) => b.transcripts.getSubsessions(id), notFound],
    ['transcripts.deleteTranscript', (b, id) => b.transcripts.deleteTranscript(id), { value: 0 }],
    ['sessions.get', (b, id) => b.sessions.get(id), { value: null }],
    ['sessions.update', (b, id) => b.sessions.update(id, { title: 'B', metadata: { by: 'B' } }), notFound],
    ['sessions.update of nothing', (b, id) => b.sessions.update(id, {}), notFound],
    ['sessions.append of a message', (b, id) => b.sessions.append(id, user('B')), notFound],
    ['sessions.append of an event', (b, id) => b.sessions.append(id, { type: 'B-event', data: 1 }), notFound],
    ['sessions.load', (b, id) => b.sessions.load(id), notFound],
    ['sessions.exportJsonl', (b, id) => jsonlOf(b, id), notFound],
    ['sessions.create with it as the parent', (b, id, { fresh }) => b.sessions.create({ id: fresh, parentId: id }), notFound],
    ['sessions.list of its subsessions', (b, id) => b.sessions.list({ parentId: id }), undefined],
  ];

  const targets: [string, () => Promise<{ b: ScopedStores; id: string; owner: View; ids: string[] }>][] = [
    [
      "tenant A's root session",
      async () => {
        const { a, b } = tenantPair();
        const { root, ids } = await seed(a);
        return { b, id: root, owner: a, ids };
      },
    ],
    [
      "tenant A's subsession",
      async () => {
        const { a, b } = tenantPair();
        const { child, ids } = await seed(a);
        return { b, id: child, owner: a, ids };
      },
    ],
    [
      'a session of no tenant',
      async () => {
        const { b } = tenantPair();
        const { root, ids } = await seed(store);
        return { b, id: root, owner: store, ids };
      },
    ],
  ];

  describe.each(targets)('%s', (_target, arrange) => {
    test.each(probes)('%s', async (_method, probe, expected) => {
      const { b, id, owner, ids } = await arrange();
      const mine = await b.sessions.create({ title: 'mine' });
      await b.messages.append(mine, user('mine'));
      const missing = unique('missing');
      const [freshForTheirs, freshForMissing] = [unique('fresh'), unique('fresh')];
      const [before, mineBefore] = await Promise.all([stateOf(owner, ids), stateOf(b, [mine])]);

      const onTheirs = await outcomeOf(() => probe(b, id, { fresh: freshForTheirs, mine }), { [id]: '<session>', [freshForTheirs]: '<fresh>' });
      const onMissing = await outcomeOf(() => probe(b, missing, { fresh: freshForMissing, mine }), { [missing]: '<session>', [freshForMissing]: '<fresh>' });

      expect(onTheirs).toEqual(onMissing);
      if (expected) expect(onTheirs).toMatchObject(expected);
      if ('value' in onTheirs && onTheirs.value && typeof onTheirs.value === 'object' && 'sessions' in onTheirs.value) {
        expect((onTheirs.value as { sessions: SessionMeta[] }).sessions.filter((s) => ids.includes(s.id))).toEqual([]);
      }
      const [after, mineAfter] = await Promise.all([stateOf(owner, ids), stateOf(b, [mine])]);
      expect(after).toEqual(before);
      expect(mineAfter).toEqual(mineBefore);
      await expectNoRows(missing, freshForTheirs, freshForMissing);
      await expectCountersUntouched(owner, before);
      await expectCountersUntouched(b, mineBefore);
    });
  });

  test("B reading A's thread with A's own cursor is not found", async () => {
    const { a, b } = tenantPair();
    const { root, ids } = await seed(a);
    const history = await a.messages.getHistoryPage(root, { limit: 2 });
    const transcript = await a.messages.getTranscriptPage(root, { limit: 2 });
    expect(history.nextCursor).not.toBeNull();
    expect(transcript.nextCursor).not.toBeNull();
    const before = await stateOf(a, ids);
    await expect(b.messages.getHistoryPage(root, { cursor: history.nextCursor! })).rejects.toThrow(StoreNotFoundError);
    await expect(b.messages.getTranscriptPage(root, { cursor: transcript.nextCursor! })).rejects.toThrow(StoreNotFoundError);
    expect(await stateOf(a, ids)).toEqual(before);
    await expectCountersUntouched(a, before);
  });
};
