// The SDK's OpenAIResponsesCompactionSession (@openai/agents-openai) over the store's Session, on
// every database, with a fake OpenAI client as the SDK's own tests use (no network). Ported from
// openai-agents-js packages/agents-openai/test/openaiResponsesCompactionSession.test.ts at tag
// v0.14.3, each test's assertions kept: its MemorySession is the store's session for a fresh id,
// vitest's vi.fn() is jest.fn(), and the model is named ('gpt-5.4-mini', 0.14's default; later
// versions changed the default, not the request). Added: what the store keeps (the transcript
// holds every item compaction replaced), run() turns around a compaction, and tenants.
// The wrapper replaces history by clearSession and addItems on the session it wraps (0.14 to 0.20;
// it never calls replaceHistoryWithCompaction), and passes it no run context: the SDK's docs say
// to keep one compaction session per context scope, i.e. around forTenant(...).forSession(...).
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { Agent, run, setDefaultModelProvider, Usage, type AgentInputItem } from '@openai/agents-core';
import { OpenAIResponsesCompactionSession } from '@openai/agents-openai';
import { StoreConfigurationError } from '../../../src/index.js';
import { OpenAIAgentsSessions } from '../../../src/integrations/openai-agents/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';
import { RecordingModel, texts } from './recording-model.js';
import { FakeModelProvider, fakeModelMessage } from './sdk-stubs.js';

const MODEL = 'gpt-5.4-mini';
type CompactRequest = { model: string; previous_response_id?: string; input?: Array<Record<string, unknown>> };
type CompactResponse = { output: unknown[]; usage: { input_tokens: number; output_tokens: number; total_tokens: number } };
/** The part of the OpenAI client the wrapper calls: `responses.compact`. */
const fakeClient = (compact: (request: CompactRequest) => Promise<CompactResponse>) =>
  ({ responses: { compact } }) as unknown as ConstructorParameters<typeof OpenAIResponsesCompactionSession>[0]['client'];
const compactMock = () => jest.fn<(request: CompactRequest) => Promise<CompactResponse>>();
const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, total_tokens: input + output });
const assistant = (text: string) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }) as AgentInputItem;

eachDatabase((database) => {
  const store = storeFor(database);
  const sessions = () => new OpenAIAgentsSessions(store.integration);
  const fresh = (name: string) => `${name}-${randomUUID()}`;
  /** The store's session for a fresh id holding `items`, in place of `new MemorySession({ initialItems })`. */
  const storeSession = async (name: string, items: AgentInputItem[] = []) => {
    const session = sessions().forSession(fresh(name));
    if (items.length > 0) await session.addItems(items);
    return session;
  };
  /** The items of the session's transcript, in order: what it ever held, compacted or not. */
  const transcript = async (sessionId: string) =>
    (await store.sessions.load(sessionId)).flatMap((entry) => ('type' in entry && entry.type === 'openai-agents.item' ? [entry.data] : []));

  beforeAll(() => setDefaultModelProvider(new FakeModelProvider()));

  test('delegates session identity and keeps cached candidates in sync', async () => {
    const assistantItem = assistant('first answer');
    const followUpItem = assistant('follow-up answer');
    const underlyingSession = await storeSession('compaction-session', [{ type: 'message', role: 'user', content: 'hello' } as AgentInputItem, assistantItem]);
    const candidateSnapshots: AgentInputItem[][] = [];
    const session = new OpenAIResponsesCompactionSession({
      client: fakeClient(compactMock()),
      model: MODEL,
      underlyingSession,
      shouldTriggerCompaction: ({ compactionCandidateItems }) => {
        candidateSnapshots.push(compactionCandidateItems);
        return false;
      },
    });

    await expect(session.getSessionId()).resolves.toBe(await underlyingSession.getSessionId());
    await expect(session.getItems(1)).resolves.toEqual([assistantItem]);
    await session.addItems([]);
    await expect(session.runCompaction({ responseId: 'resp_1' })).resolves.toBe(null);

    await session.addItems([followUpItem]);
    await expect(session.popItem()).resolves.toEqual(followUpItem);
    await expect(session.runCompaction()).resolves.toBe(null);

    await session.clearSession();
    await expect(session.popItem()).resolves.toBeUndefined();
    await expect(session.runCompaction()).resolves.toBe(null);

    expect(candidateSnapshots).toEqual([[assistantItem], [assistantItem], []]);
    await expect(session.getItems()).resolves.toEqual([]);
  });

  test('uses the default compaction threshold for candidate items', async () => {
    const compact = compactMock().mockResolvedValue({ output: [], usage: usage(10, 1) });
    const underlyingSession = await storeSession('threshold');
    const session = new OpenAIResponsesCompactionSession({ client: fakeClient(compact), model: MODEL, underlyingSession, compactionMode: 'input' });
    const answers = Array.from({ length: 10 }, (_, index) => assistant(`answer ${index}`));
    await session.addItems(answers.slice(0, 9));
    // Nine candidates: under the threshold.
    await expect(session.runCompaction()).resolves.toBeNull();
    await session.addItems(answers.slice(9));

    await expect(session.runCompaction()).resolves.not.toBeNull();
    expect(compact).toHaveBeenCalledTimes(1);
    expect(compact.mock.calls[0][0].input).toHaveLength(10);
    // The empty output is the whole history now; the transcript keeps the ten.
    expect(await underlyingSession.getItems()).toEqual([]);
    expect(await transcript(await underlyingSession.getSessionId())).toEqual(answers);
  });

  test('compacts using input mode without a response id', async () => {
    const compact = compactMock().mockResolvedValue({ output: [], usage: usage(0, 0) });
    const session = new OpenAIResponsesCompactionSession({
      client: fakeClient(compact),
      model: MODEL,
      underlyingSession: await storeSession('input'),
      compactionMode: 'input',
    });

    await session.addItems([{ type: 'message', role: 'user', content: 'hello' } as AgentInputItem, assistant('world')]);

    await session.runCompaction({ force: true });

    expect(compact).toHaveBeenCalledTimes(1);
    const [request] = compact.mock.calls[0] ?? [];
    expect(request).toMatchObject({ model: MODEL });
    expect(request.previous_response_id).toBeUndefined();
    expect(request.input).toHaveLength(2);
    expect(request.input![0]).toMatchObject({ role: 'user', content: 'hello' });
    expect(request.input![1]).toMatchObject({ type: 'message', role: 'assistant' });
  });

  test('replaces history after compaction and reuses the stored response id; the transcript keeps what it replaced', async () => {
    const compact = compactMock()
      .mockResolvedValueOnce({ output: [assistant('compacted output')], usage: usage(2, 3) })
      .mockResolvedValueOnce({ output: [assistant('second pass')], usage: usage(1, 1) });
    const underlyingSession = await storeSession('replace');
    const session = new OpenAIResponsesCompactionSession({ client: fakeClient(compact), model: MODEL, underlyingSession });
    const hi = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } as AgentInputItem;

    await session.addItems([hi, assistant('first output')]);

    await session.runCompaction({ responseId: 'resp_store', force: true });

    expect(compact).toHaveBeenCalledWith({ previous_response_id: 'resp_store', model: MODEL });
    expect(await session.getItems()).toEqual([assistant('compacted output')]);

    await session.addItems([assistant('follow up')]);

    await session.runCompaction({ force: true });

    expect(compact).toHaveBeenCalledTimes(2);
    expect(compact).toHaveBeenLastCalledWith({ previous_response_id: 'resp_store', model: MODEL });
    expect(await session.getItems()).toEqual([assistant('second pass')]);

    // The store's own read of the same session, and its transcript: every item, compacted or not.
    expect(await underlyingSession.getItems()).toEqual([assistant('second pass')]);
    expect(await transcript(await session.getSessionId())).toEqual([
      hi,
      assistant('first output'),
      assistant('compacted output'),
      assistant('follow up'),
      assistant('second pass'),
    ]);
  });

  test("run() compacts after a turn, and the next turn's model input starts with the compaction item", async () => {
    const compactionItem = { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENCRYPTED-SUMMARY' };
    const compact = compactMock().mockResolvedValue({
      output: [{ type: 'message', role: 'user', id: 'msg_u1', content: [{ type: 'input_text', text: 'My name is Ada.' }] }, compactionItem],
      usage: usage(5, 2),
    });
    const underlyingSession = await storeSession('run');
    const session = new OpenAIResponsesCompactionSession({
      client: fakeClient(compact),
      model: MODEL,
      underlyingSession,
      // After the first turn only: the second turn's items then follow the compaction's.
      shouldTriggerCompaction: () => compact.mock.calls.length === 0,
    });
    const model = new RecordingModel([
      { output: [fakeModelMessage('Hello Ada.')], usage: new Usage() },
      { output: [fakeModelMessage('Your name is Ada.')], usage: new Usage() },
    ]);
    const agent = new Agent({ name: 'Assistant', model });

    await run(agent, 'My name is Ada.', { session });
    // The runner ran the compaction after the turn, in input mode (no response id), on what the store held.
    expect(compact).toHaveBeenCalledTimes(1);
    const [request] = compact.mock.calls[0];
    expect(request.previous_response_id).toBeUndefined();
    expect(request.input).toEqual([
      expect.objectContaining({ role: 'user', content: 'My name is Ada.' }),
      expect.objectContaining({ type: 'message', role: 'assistant', content: [expect.objectContaining({ type: 'output_text', text: 'Hello Ada.' })] }),
    ]);
    // The history is the compaction's output, normalized by the SDK, as it gave it.
    const compacted = [{ id: 'msg_u1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'My name is Ada.' }] }, compactionItem];
    expect(await underlyingSession.getItems()).toEqual(compacted);

    const second = await run(agent, 'What is my name?', { session });
    expect(second.finalOutput).toBe('Your name is Ada.');
    // The runner replays history from its latest compaction item on (what it summarizes is in it).
    const input = model.requests[1].input as AgentInputItem[];
    expect(input).toEqual([compactionItem, expect.objectContaining({ role: 'user', content: 'What is my name?' })]);
    expect(compact).toHaveBeenCalledTimes(1);
    expect(texts(await underlyingSession.getItems())).toEqual(['message', 'compaction', 'What is my name?', 'message']);
  });

  test("tenants: around forTenant's session it compacts in the tenant; around forRunContext's, which it gives no run context, it is refused and writes nothing", async () => {
    const compact = compactMock().mockResolvedValue({ output: [assistant('summary')], usage: usage(1, 1) });
    const id = fresh('tenant');
    const inAcme = sessions().forTenant('acme').forSession(id);
    const session = new OpenAIResponsesCompactionSession({ client: fakeClient(compact), model: MODEL, underlyingSession: inAcme, compactionMode: 'input' });
    await session.addItems([assistant('a'), assistant('b')]);
    await session.runCompaction({ force: true });
    expect(await inAcme.getItems()).toEqual([assistant('summary')]);
    expect(await sessions().forTenant('globex').forSession(id).getItems()).toEqual([]);
    expect(await store.tenants.forTenant('acme').sessions.get(id)).toMatchObject({ id, tenantId: 'acme' });

    const unscoped = fresh('tenant-run-context');
    const wrapped = new OpenAIResponsesCompactionSession({
      client: fakeClient(compact),
      model: MODEL,
      underlyingSession: sessions().forRunContext<{ tenantId: string }>(unscoped, { tenantOf: (context) => context.tenantId }),
      compactionMode: 'input',
    });
    await expect(wrapped.addItems([assistant('no')])).rejects.toThrow(StoreConfigurationError);
    await expect(wrapped.runCompaction({ force: true })).rejects.toThrow(StoreConfigurationError);
    expect(compact).toHaveBeenCalledTimes(1);
    expect(await store.sessions.get(unscoped)).toBeNull();
  });
});
