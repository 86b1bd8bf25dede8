// What the tenant suites (tenantStores, tenantProbes) read and write through: two
// tenants' stores, a seeded tree of sessions, and everything a view can read of
// it, to prove a call by another tenant answered as for a missing session and
// changed nothing.
import type { MessageInput, MessageStore, SessionMeta, SessionStore, TranscriptStore } from '../../index.js';
import type { ExportedLine } from '../footprint.js';
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

  /** The session's export, the lines as exportJsonl yields them: one read gives its text (jsonlOf's) and its parsed lines (exportedLines'). */
  async function exportOf(view: View, id: string): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of view.sessions.exportJsonl(id)) lines.push(line);
    return lines;
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
   * and its children; none without a header), its repair evidence and its edges.
   */
  async function rowsOf(id: string) {
    const thread = await store.sessions.get(id);
    const [log, lines, repairs, children] = await Promise.all([
      thread ? store.sessions.load(id) : store.messages.getTranscript(id),
      thread ? exportOf(store, id) : [],
      store.messages.getRepairs(id),
      store.transcripts.getSubsessions(id),
    ]);
    return rowsFrom(thread, log, lines, repairs, children);
  }

  /** rowsOf's value from its reads: the export as exportOf's lines, parsed (exportedLines'). */
  function rowsFrom<Log>(thread: SessionMeta | null, log: Log, lines: string[], repairs: unknown[], children: string[]) {
    return {
      thread,
      log,
      exported: lines.map((line) => JSON.parse(line) as ExportedLine),
      repairs,
      edges: { parent: thread?.parentId ?? null, children },
    };
  }

  const NO_ROWS = { thread: null, log: [], exported: [], repairs: [], edges: { parent: null, children: [] } };

  /**
   * The ids hold nothing: no session, log, boundary, repair or edge, and no
   * tombstone. A tombstone shows only as the id being taken, so the proof
   * creates the sessions: it comes after every other check of every id.
   */
  async function expectNoRows(...ids: string[]) {
    const rows = await Promise.all(ids.map(rowsOf));
    for (const row of rows) expect(row).toEqual(NO_ROWS);
    for (const id of ids) await expect(store.sessions.create({ id })).resolves.toBe(id);
  }

  /**
   * Everything the owner can read of its sessions, and their rows. Through the
   * unscoped stores the rows are the very calls the view makes (its header, log,
   * export, repairs and subsessions), so they are taken from those reads rather
   * than made twice.
   */
  async function stateOf(view: View, ids: string[]) {
    return Promise.all(
      ids.map(async (id) => {
        const [meta, entries, lines, history, transcript, count, repairs, stored, subsessions, rows] = await Promise.all([
          view.sessions.get(id),
          view.sessions.load(id),
          exportOf(view, id),
          view.messages.getHistory(id),
          view.messages.getTranscript(id),
          view.messages.count(id),
          view.messages.getRepairs(id),
          view.transcripts.getTranscript(id),
          view.transcripts.getSubsessions(id),
          view === store ? undefined : rowsOf(id),
        ]);
        return {
          id,
          meta,
          entries,
          jsonl: lines.join(''),
          history,
          transcript,
          count,
          repairs,
          stored,
          subsessions,
          rows: rows ?? rowsFrom(meta, meta ? entries : transcript, meta ? lines : [], repairs, subsessions),
        };
      }),
    );
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
