// What the tenant suites (tenantStores, tenantProbes) read and write through: two
// tenants' stores, a seeded tree of sessions, and everything a view can read of
// it, to prove a call by another tenant answered as for a missing session and
// changed nothing.
import type { MessageInput, MessageStore, SessionStore, TranscriptStore } from '../../index.js';
import { exportedLines } from '../footprint.js';
import type { KitStore, SuiteContext } from '../kit.js';

/** What reads a session: a tenant's stores, or the unscoped ones. */
export type View = { messages: MessageStore; transcripts: TranscriptStore; sessions: SessionStore };

/** What a call did, comparable between two calls: its value, or its error's class and message (ids replaced by placeholders). */
export type Outcome = { value: unknown } | { threw: string; message: string };

/** The helpers on a suite's store; ids are unique within the suite (each suite has a fresh database). */
export function tenantViews(store: KitStore, expect: SuiteContext['expect']) {
  let n = 0;
  const unique = (name = 's') => `${name}-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);
  /** Two fresh tenants: A owns the data, B probes it. */
  const tenantPair = () => ({ a: store.tenants.forTenant(unique('tenant-a')), b: store.tenants.forTenant(unique('tenant-b')) });

  async function jsonlOf(view: View, id: string): Promise<string> {
    let text = '';
    for await (const line of view.sessions.exportJsonl(id)) text += line;
    return text;
  }

  async function outcomeOf(call: () => Promise<unknown>, placeholders: Record<string, string>): Promise<Outcome> {
    const anonymous = (text: string) => Object.entries(placeholders).reduce((result, [id, name]) => result.split(id).join(name), text);
    try {
      return { value: await call() };
    } catch (error) {
      const { name, message } = error as Error;
      return { threw: name, message: anonymous(String(message)) };
    }
  }

  /**
   * Everything the unscoped stores hold for the session: its header, its log
   * (read through getTranscript when there is no header, which reads a
   * thread's messages either way), its export (the log with its boundaries,
   * and its children), its repair evidence and its edges.
   */
  async function rowsOf(id: string) {
    const thread = await store.sessions.get(id);
    return {
      thread,
      log: thread ? await store.sessions.load(id) : await store.messages.getTranscript(id),
      exported: await exportedLines(store, id),
      repairs: await store.messages.getRepairs(id),
      edges: { parent: thread?.parentId ?? null, children: await store.transcripts.getSubsessions(id) },
    };
  }

  const NO_ROWS = { thread: null, log: [], exported: [], repairs: [], edges: { parent: null, children: [] } };

  /**
   * The id holds nothing: no session, log, boundary, repair or edge, and no
   * tombstone. A tombstone shows only as the id being taken, so the proof
   * creates the session: it comes after every other check of the id.
   */
  async function expectNoRows(id: string) {
    expect(await rowsOf(id)).toEqual(NO_ROWS);
    await expect(store.sessions.create({ id })).resolves.toBe(id);
  }

  /** Everything the owner can read of its sessions, and their rows. */
  async function stateOf(view: View, ids: string[]) {
    const state = [];
    for (const id of ids) {
      state.push({
        id,
        meta: await view.sessions.get(id),
        entries: await view.sessions.load(id),
        jsonl: await jsonlOf(view, id),
        history: await view.messages.getHistory(id),
        transcript: await view.messages.getTranscript(id),
        count: await view.messages.count(id),
        repairs: await view.messages.getRepairs(id),
        stored: await view.transcripts.getTranscript(id),
        subsessions: await view.transcripts.getSubsessions(id),
        rows: await rowsOf(id),
      });
    }
    return state;
  }

  /**
   * What stateOf cannot read: the sequence counter on each session's row. The
   * next append to each session gets the seq after the last one its export
   * shows, so no write took one. It appends: it comes after every other check.
   */
  async function expectCountersUntouched(view: View, state: Awaited<ReturnType<typeof stateOf>>) {
    for (const { id, jsonl } of state) {
      const seqs = jsonl
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { seq?: number }).seq ?? 0);
      expect((await view.messages.append(id, user('after'))).seq).toBe(Math.max(0, ...seqs) + 1);
    }
  }

  const CALL: MessageInput = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }] };
  const INTERRUPTED: MessageInput = {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'error-text', value: 'interrupted' } }],
  };

  /** A root with messages, an event, a compaction, a repair, and a subsession with a message of its own. */
  async function seed(owner: View & { tenantId?: string }) {
    const root = await owner.sessions.create({ id: unique('root'), title: 'owned', metadata: { owner: owner.tenantId ?? null } });
    await owner.messages.appendMany(root, ['m1', 'm2', 'm3', 'm4'].map(user));
    await owner.sessions.append(root, { type: 'note', data: { by: 'owner' } });
    await owner.messages.appendCompaction(root, [{ role: 'system', content: 'summary of m1-m2' }], 2, 0);
    await owner.messages.append(root, CALL);
    // Effective: summary, m3, m4, CALL; the crash left CALL orphaned.
    await owner.messages.appendRepair(root, INTERRUPTED, [{ role: 'system', content: 'summary of m1-m2' }, user('m3'), user('m4'), CALL, INTERRUPTED], 4);
    const child = await owner.sessions.create({ id: unique('child'), parentId: root, title: 'owned child' });
    await owner.messages.append(child, user('c1'));
    return { root, child, ids: [root, child] };
  }
  return { unique, user, texts, tenantPair, jsonlOf, outcomeOf, rowsOf, expectNoRows, stateOf, expectCountersUntouched, seed, CALL, INTERRUPTED };
}
