// SessionStore.fork on every backend: a fork's history is its source's up to a point, copied from the
// effective history (never the compacted transcript), refused between a tool call and its result, and
// independent of its source afterwards, also when the source is written while it forks.
import { StoreConflictError, StoreNotFoundError, StoreValidationError, type HistoryMessage, type MessageInput } from '../../index.js';
import type { Suite } from '../kit.js';

/**
 * SessionStore.fork: a fork's history is its source's up to a point, refused between a tool call and its result
 * (or repaired), and independent of its source afterwards, also when the source is written while it forks.
 */
export const sessionForks: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const unique = (name = 's') => `${name}-${++n}`;
  const user = (text: string, id?: string): MessageInput => ({ role: 'user', content: text, ...(id && { id }) });
  const assistant = (text: string): MessageInput => ({ role: 'assistant', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((message) => message.content);
  const call = (toolCallId: string): MessageInput => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'search', input: {} }] });
  const result = (toolCallId: string): MessageInput => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId, toolName: 'search', output: { type: 'text', value: 'found' } }],
  });
  /** History as a model reads it: role and content (seqs differ between a thread and its fork only where the fork wrote its own). */
  const shape = (history: HistoryMessage[]) => history.map(({ role, content }) => ({ role, content }));

  async function sourceWith(messages: MessageInput[], meta: { title?: string; metadata?: { [key: string]: string } } = {}): Promise<string> {
    const id = await store.sessions.create({ id: unique('source'), ...meta });
    if (messages.length > 0) await store.messages.appendMany(id, messages);
    return id;
  }

  describe('what a fork holds', () => {
    test("by default, the source's whole effective history, its header, and where it came from", async () => {
      const source = await sourceWith([user('hi'), assistant('hello'), user('more')], { title: 'Trip', metadata: { model: 'm' } });
      await store.sessions.append(source, { type: 'note', data: { kept: true } });
      const fork = await store.sessions.fork(source);
      expect(fork).toMatchObject({ title: 'Trip', metadata: { model: 'm' }, parentId: null, tenantId: null, forkedFrom: { sessionId: source, seq: 4 } });
      expect(fork.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.sessions.get(fork.id)).toEqual(fork);
      expect(await store.messages.getHistory(fork.id)).toEqual(await store.messages.getHistory(source));
      // Events come along: the fork's log is the source's, seqs included.
      expect(await store.sessions.load(fork.id)).toEqual(await store.sessions.load(source));
    });

    test('the options name it and replace its title and metadata', async () => {
      const source = await sourceWith([user('hi')], { title: 'Trip', metadata: { model: 'm' } });
      const id = unique('fork');
      const fork = await store.sessions.fork(source, { id, title: 'Trip, take two', metadata: { branch: 'b' } });
      expect(fork).toMatchObject({ id, title: 'Trip, take two', metadata: { branch: 'b' } });
    });

    test('a compacted source forks its summary and the messages after the cut, not the transcript before it', async () => {
      const source = await sourceWith(Array.from({ length: 30 }, (_, i) => user(`m${i}`)));
      await store.messages.appendCompaction(source, [assistant('summary of 28')], 28, 0);
      await store.messages.append(source, user('after'));
      const fork = await store.sessions.fork(source);
      expect(await store.messages.getHistory(fork.id)).toEqual(await store.messages.getHistory(source));
      expect(texts(await store.messages.getHistory(fork.id))).toEqual(['summary of 28', 'm28', 'm29', 'after']);
      // The fork's transcript starts after the cut: the 28 compacted messages were not copied.
      expect(texts(await store.messages.getTranscript(fork.id))).toEqual(['m28', 'm29', 'after']);
      expect(await store.messages.count(fork.id)).toBe(4);
    });

    test("a repaired source's fork keeps the repair's evidence", async () => {
      const source = await sourceWith([user('go'), call('c1'), user('hello?')]);
      expect(await store.messages.repairToolCalls(source)).not.toBeNull();
      const fork = await store.sessions.fork(source);
      expect(await store.messages.getHistory(fork.id)).toEqual(await store.messages.getHistory(source));
      expect(await store.messages.getRepairs(fork.id)).toEqual(await store.messages.getRepairs(source));
    });

    test('a fork of a subsession is a root, and the source keeps its own subsessions', async () => {
      const parent = await sourceWith([user('p')]);
      const child = await store.sessions.create({ id: unique('child'), parentId: parent });
      await store.messages.append(child, user('c'));
      const forkOfChild = await store.sessions.fork(child);
      const forkOfParent = await store.sessions.fork(parent);
      expect(forkOfChild.parentId).toBeNull();
      expect(await store.transcripts.getSubsessions(forkOfParent.id)).toEqual([]);
      expect(await store.transcripts.getSubsessions(parent)).toEqual([child]);
    });

    test("a chat's fork loads the same chat", async () => {
      const chat = unique('chat');
      const messages = [
        { id: 'u1', role: 'user' as const, parts: [{ type: 'text', text: 'hi' }] },
        { id: 'a1', role: 'assistant' as const, parts: [{ type: 'text', text: 'hello' }] },
      ];
      await store.chats.saveChat(chat, messages);
      const fork = await store.sessions.fork(chat);
      expect(await store.chats.loadChat(fork.id)).toEqual(messages);
    });

    test('the forks of a session are listed newest first; a deleted source leaves its forks and their origin', async () => {
      const source = await sourceWith([user('hi')]);
      const first = await store.sessions.fork(source, { id: unique('fork') });
      const second = await store.sessions.fork(source, { id: unique('fork') });
      await store.sessions.fork(first.id);
      const page = await store.sessions.list({ forkedFrom: source });
      expect(page.sessions.map((meta) => meta.id).sort()).toEqual([first.id, second.id].sort());
      expect(page.sessions.every((meta) => meta.forkedFrom?.sessionId === source)).toBe(true);
      expect((await store.sessions.list({ forkedFrom: source, limit: 1 })).nextCursor).not.toBeNull();
      await store.transcripts.deleteTranscript(source);
      expect(await store.sessions.get(first.id)).toMatchObject({ forkedFrom: { sessionId: source, seq: 1 } });
      expect(texts(await store.messages.getHistory(first.id))).toEqual(['hi']);
    });
  });

  describe('fork points', () => {
    test('{ seq }: up to and including that message of the effective history', async () => {
      const source = await sourceWith([user('a'), assistant('b'), user('c'), assistant('d')]);
      const fork = await store.sessions.fork(source, { at: { seq: 2 } });
      expect(texts(await store.messages.getHistory(fork.id))).toEqual(['a', 'b']);
      expect(fork.forkedFrom).toEqual({ sessionId: source, seq: 2 });
      // The next append takes the seq after the fork point, in the fork only.
      expect((await store.messages.append(fork.id, user('c2'))).seq).toBe(3);
      expect(texts(await store.messages.getHistory(source))).toEqual(['a', 'b', 'c', 'd']);
    });

    test('{ position }: the first n messages of the effective history, the summary included', async () => {
      const source = await sourceWith([user('a'), assistant('b'), user('c'), assistant('d'), user('e')]);
      await store.messages.appendCompaction(source, [assistant('s1'), assistant('s2')], 3, 0);
      // History: s1, s2, d, e.
      const cases: [number, string[]][] = [
        [0, []],
        [1, ['s1']],
        [2, ['s1', 's2']],
        [3, ['s1', 's2', 'd']],
        [4, ['s1', 's2', 'd', 'e']],
      ];
      for (const [position, expected] of cases) {
        const fork = await store.sessions.fork(source, { at: { position } });
        expect(texts(await store.messages.getHistory(fork.id))).toEqual(expected);
        expect(await store.messages.count(fork.id)).toBe(expected.length);
      }
      await expect(store.sessions.fork(source, { at: { position: 5 } })).rejects.toThrow(StoreValidationError);
    });

    test("a fork inside a summary keeps as verbatim only the replacement's verbatim messages it holds", async () => {
      const source = await sourceWith([user('m1'), assistant('m2'), user('m3'), assistant('m4')]);
      // A summary of m1 and m2, then m3 and m4 kept verbatim: the replacement's last two.
      await store.messages.appendCompaction(source, [assistant('summary'), user('m3'), assistant('m4')], 4, 2);
      const compactionOf = async (id: string) => {
        for await (const line of store.sessions.exportJsonl(id)) if (JSON.parse(line).type === 'compaction') return JSON.parse(line);
      };
      expect(await compactionOf((await store.sessions.fork(source, { at: { position: 1 } })).id)).toMatchObject({
        messages: [{ content: 'summary' }],
        retainedMessageCount: 0,
      });
      expect(await compactionOf((await store.sessions.fork(source, { at: { position: 2 } })).id)).toMatchObject({ retainedMessageCount: 1 });
      expect(await compactionOf((await store.sessions.fork(source)).id)).toMatchObject({ retainedMessageCount: 2 });
    });

    test('a seq that is not a message of the effective history is refused, and nothing is created', async () => {
      const source = await sourceWith([user('a'), assistant('b'), user('c')]);
      await store.sessions.append(source, { type: 'note', data: 1 });
      await store.messages.appendCompaction(source, [assistant('summary')], 2, 0);
      for (const seq of [1, 2, 4, 5, 99]) {
        const id = unique('refused');
        await expect(store.sessions.fork(source, { id, at: { seq } })).rejects.toThrow(StoreValidationError);
        expect(await store.sessions.get(id)).toBeNull();
      }
      expect(texts(await store.messages.getHistory((await store.sessions.fork(source, { at: { seq: 3 } })).id))).toEqual(['summary', 'c']);
    });

    test('between a tool call and its result the fork is refused; repaired, the call gets an error result in the fork only', async () => {
      const source = await sourceWith([user('find it'), call('c1'), result('c1'), assistant('found')]);
      const id = unique('refused');
      await expect(store.sessions.fork(source, { id, at: { position: 2 } })).rejects.toThrow(/tool calls without their results \(c1\)/);
      expect(await store.sessions.get(id)).toBeNull();
      // After the result, nothing is open.
      expect(texts(await store.messages.getHistory((await store.sessions.fork(source, { at: { position: 3 } })).id))).toHaveLength(3);
      const repaired = await store.sessions.fork(source, { at: { position: 2 }, unansweredToolCalls: 'repair' });
      const history = await store.messages.getHistory(repaired.id);
      expect(history.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
      expect(history[2].content).toEqual([
        expect.objectContaining({ type: 'tool-result', toolCallId: 'c1', output: { type: 'error-text', value: expect.any(String) } }),
      ]);
      expect(await store.messages.getRepairs(repaired.id)).toHaveLength(1);
      expect(await store.messages.getRepairs(source)).toEqual([]);
      expect(texts(await store.messages.getHistory(source))).toHaveLength(4);
    });

    test('edit and regenerate: the last user message is replaced, and what followed it is left in the source', async () => {
      const source = await sourceWith([user('plan a trip', 'u1'), assistant('where to?'), user('Rome', 'u2'), assistant('Rome it is')]);
      const fork = await store.sessions.fork(source, { replaceLastUserMessage: user('Paris', 'u2-edit') });
      expect(texts(await store.messages.getHistory(fork.id))).toEqual(['plan a trip', 'where to?', 'Paris']);
      expect(fork.forkedFrom).toEqual({ sessionId: source, seq: 2 });
      expect(texts(await store.messages.getHistory(source))).toEqual(['plan a trip', 'where to?', 'Rome', 'Rome it is']);
      // An id the fork's history holds is a conflict; the replaced message's own id is free.
      await expect(store.sessions.fork(source, { replaceLastUserMessage: user('Paris', 'u1') })).rejects.toThrow(StoreConflictError);
      const sameId = await store.sessions.fork(source, { replaceLastUserMessage: user('Paris', 'u2') });
      expect((await store.messages.getHistory(sameId.id)).at(-1)).toMatchObject({ id: 'u2', content: 'Paris', seq: 3 });
    });

    test('edit and regenerate reaches into a summary, and needs a user message', async () => {
      const source = await sourceWith([user('a'), assistant('b'), assistant('c')]);
      await store.messages.appendCompaction(source, [user('summary asks'), assistant('summary answers')], 2, 0);
      const fork = await store.sessions.fork(source, { replaceLastUserMessage: user('asked again') });
      expect(texts(await store.messages.getHistory(fork.id))).toEqual(['asked again']);
      const silent = await sourceWith([assistant('only me')]);
      await expect(store.sessions.fork(silent, { replaceLastUserMessage: user('x') })).rejects.toThrow(/no user message/);
    });
  });

  describe('lineage through a JSONL export', () => {
    const exported = async (id: string) => {
      let text = '';
      for await (const line of store.sessions.exportJsonl(id)) text += line;
      return text;
    };

    test('a fork and a fork of the fork keep their forkedFrom through exportJsonl and importJsonl, also where their sources are not', async () => {
      const source = await sourceWith([user('hi'), assistant('hello'), user('more')]);
      const fork = await store.sessions.fork(source, { at: { seq: 2 } });
      await store.messages.append(fork.id, user('branch'));
      const forkOfFork = await store.sessions.fork(fork.id);
      const [forkFile, forkOfForkFile] = [await exported(fork.id), await exported(forkOfFork.id)];
      expect(JSON.parse(forkFile.split('\n')[0]).forkedFrom).toEqual({ sessionId: source, seq: 2 });
      expect(JSON.parse(forkOfForkFile.split('\n')[0]).forkedFrom).toEqual({ sessionId: fork.id, seq: 3 });
      // A move to a database that holds neither source: here, the sources deleted and the files imported under new ids.
      await store.transcripts.deleteTranscript(source);
      const [copy, copyOfCopy] = [unique('restored'), unique('restored')];
      await store.sessions.importJsonl(forkFile, { sessionId: copy });
      await store.sessions.importJsonl(forkOfForkFile, { sessionId: copyOfCopy });
      expect((await store.sessions.get(copy))!.forkedFrom).toEqual({ sessionId: source, seq: 2 });
      expect((await store.sessions.get(copyOfCopy))!.forkedFrom).toEqual({ sessionId: fork.id, seq: 3 });
      expect((await store.sessions.list({ forkedFrom: source })).sessions.map((meta) => meta.id).sort()).toEqual([fork.id, copy].sort());
      // A restore under the same ids: the export of the restored session is the file it came from.
      await store.transcripts.deleteTranscript(forkOfFork.id);
      const restored = unique('restored');
      await store.sessions.importJsonl(forkOfForkFile.replace(JSON.stringify(forkOfFork.id), JSON.stringify(restored)));
      expect(await exported(restored)).toBe(forkOfForkFile.replace(JSON.stringify(forkOfFork.id), JSON.stringify(restored)));
    });

    test("a session that is no fork exports no forkedFrom; a header's forkedFrom that is not { sessionId, seq } is refused and nothing is written", async () => {
      const source = await sourceWith([user('hi')]);
      const file = await exported(source);
      const header = JSON.parse(file.split('\n')[0]);
      expect(Object.hasOwn(header, 'forkedFrom')).toBe(false);
      const body = file.slice(file.indexOf('\n'));
      for (const forkedFrom of [
        's',
        false,
        0,
        '',
        [],
        { sessionId: 's' },
        { sessionId: '', seq: 1 },
        { sessionId: 's', seq: -1 },
        { sessionId: 's', seq: 1, more: 1 },
      ]) {
        const id = unique('bad-origin');
        await expect(store.sessions.importJsonl(JSON.stringify({ ...header, id, forkedFrom }) + body)).rejects.toThrow(StoreValidationError);
        await expect(store.sessions.importJsonl(JSON.stringify({ ...header, id, forkedFrom }) + body)).rejects.toThrow(/line 1: forkedFrom/);
        expect(await store.sessions.get(id)).toBeNull();
      }
      // Without it, or null, a file imports as no fork.
      for (const forkedFrom of [undefined, null]) {
        const id = unique('no-origin');
        await store.sessions.importJsonl(JSON.stringify({ ...header, id, forkedFrom }) + body);
        expect((await store.sessions.get(id))!.forkedFrom).toBeNull();
      }
    });
  });

  describe('afterwards', () => {
    test('appends to the fork and to the source never affect each other', async () => {
      const source = await sourceWith([user('a', 'a'), assistant('b')]);
      const fork = await store.sessions.fork(source);
      await store.messages.append(source, user('to source'));
      await store.messages.append(fork.id, user('to fork'));
      // The copied ids are the fork's own: a retried append finds its copy.
      expect((await store.messages.append(fork.id, user('a', 'a'))).seq).toBe(1);
      await store.messages.appendCompaction(fork.id, [assistant('fork summary')], 3, 0);
      expect(texts(await store.messages.getHistory(source))).toEqual(['a', 'b', 'to source']);
      expect(texts(await store.messages.getHistory(fork.id))).toEqual(['fork summary']);
      await store.transcripts.deleteTranscript(fork.id);
      expect(texts(await store.messages.getHistory(source))).toEqual(['a', 'b', 'to source']);
    });

    test('a fork racing appends to its source holds exactly the source as it was at its origin', async () => {
      const source = await sourceWith([user('start')]);
      const other = await store.another();
      try {
        let stop = false;
        let written = 0;
        const writer = (async () => {
          // An agent's pace, a message every few ms: a writer that never lets go of a SQLite file, or of a
          // row that another Galera node locks, starves every other writer of it (forks or not).
          for (let i = 0; !stop && i < 5000; i++) {
            await other.messages.append(source, user(`w${i}`));
            written++;
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        })().finally(() => (stop = true));
        const forks = [];
        for (let i = 0; i < 6 && !stop; i++) {
          // Each fork after a few more appends were acknowledged, while the writer goes on.
          const target = written + 3;
          while (written < target && !stop) await new Promise((resolve) => setTimeout(resolve, 2));
          forks.push(await store.sessions.fork(source));
        }
        stop = true;
        await writer;
        expect(forks).toHaveLength(6);
        const full = await store.messages.getHistory(source);
        for (const fork of forks) {
          const origin = fork.forkedFrom!.seq;
          expect(await store.messages.getHistory(fork.id)).toEqual(full.filter((message) => message.seq! <= origin));
        }
        // The forks saw the source at different points while it grew.
        expect(new Set(forks.map((fork) => fork.forkedFrom!.seq)).size).toBeGreaterThan(1);
      } finally {
        await other.close();
      }
    });

    test('a fork racing replaceHistory of its source holds one history or the other, never a part of one', async () => {
      const old = Array.from({ length: 40 }, (_, i) => user(`old${i}`));
      const source = await sourceWith(old);
      const other = await store.another();
      try {
        const forks = [];
        for (let round = 0; round < 8; round++) {
          const replaced = Array.from({ length: 40 }, (_, i) => user(`r${round}-${i}`));
          const [fork] = await Promise.all([store.sessions.fork(source), other.messages.replaceHistory(source, replaced)]);
          forks.push(fork);
        }
        for (const fork of forks) {
          const history = texts(await store.messages.getHistory(fork.id)) as string[];
          expect(history).toHaveLength(40);
          // One generation: every message from the same replaceHistory (or the first appends).
          expect(new Set(history.map((text) => text.replace(/-?\d+$/, ''))).size).toBe(1);
        }
      } finally {
        await other.close();
      }
    });
  });

  describe('refusals', () => {
    test('an unknown source is not found; a taken or deleted id is a conflict', async () => {
      await expect(store.sessions.fork(unique('missing'))).rejects.toThrow(StoreNotFoundError);
      const source = await sourceWith([user('a')]);
      const taken = await sourceWith([user('b')]);
      await expect(store.sessions.fork(source, { id: taken })).rejects.toThrow(StoreConflictError);
      await expect(store.sessions.fork(source, { id: source })).rejects.toThrow(StoreConflictError);
      const deleted = await sourceWith([]);
      await store.transcripts.deleteTranscript(deleted);
      await expect(store.sessions.fork(source, { id: deleted })).rejects.toThrow(StoreConflictError);
      expect(await store.sessions.get(deleted)).toBeNull();
      expect(shape(await store.messages.getHistory(taken))).toEqual([{ role: 'user', content: 'b' }]);
    });

    test.each([
      ['an unknown option', { depth: 1 }],
      ['at and replaceLastUserMessage together', { at: { seq: 1 }, replaceLastUserMessage: { role: 'user', content: 'x' } }],
      ['a point of both seq and position', { at: { seq: 1, position: 1 } }],
      ['an empty point', { at: {} }],
      ['a negative position', { at: { position: -1 } }],
      ['a replacement that is not a user message', { replaceLastUserMessage: { role: 'assistant', content: 'x' } }],
      ['an unknown unansweredToolCalls', { unansweredToolCalls: 'ignore' }],
      ['an id that is not a string', { id: 7 }],
    ])('rejects %s, and creates nothing', async (_name, options) => {
      const source = await sourceWith([user('a')]);
      const before = (await store.sessions.list({ forkedFrom: source })).sessions;
      await expect(store.sessions.fork(source, options as never)).rejects.toThrow(StoreValidationError);
      expect((await store.sessions.list({ forkedFrom: source })).sessions).toEqual(before);
    });

    test("a tenant forks its own sessions into its tenant, and another tenant's source answers as a missing one", async () => {
      const acme = store.tenants.forTenant(unique('acme'));
      const globex = store.tenants.forTenant(unique('globex'));
      const source = await acme.sessions.create();
      await acme.messages.append(source, user('secret plan'));
      const fork = await acme.sessions.fork(source);
      expect(fork.tenantId).toBe(acme.tenantId);
      expect((await acme.sessions.list({ forkedFrom: source })).sessions.map((meta) => meta.id)).toEqual([fork.id]);
      const probe = unique('probe');
      await expect(globex.sessions.fork(source, { id: probe })).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(probe)).toBeNull();
      expect((await globex.sessions.list({ forkedFrom: source })).sessions).toEqual([]);
    });
  });
};
