// The OpenAI Agents SDK's own runner session tests: the `describe('sessions', ...)` block of
// openai-agents-js (github.com/openai/openai-agents-js) packages/agents-core/test/run.test.ts at
// tag v0.14.3 (lines 5165-6247), with its helpers getFirstTextContent, getRequestInputItems and
// StreamingModel (lines 3319-3340 of the same file) and the `Runner.run` block's beforeAll, ported
// to the store's Session on every database. Every test and every assertion is kept. Changed:
// - the test-local in-memory `MemorySession` is the store's session (StoreAgentSession) for a
//   fresh session id, wrapped in RecordingSession: it delegates every method, the optional
//   replaceHistoryWithCompaction and applyHistoryTransaction included, and records the batches the
//   runner gave addItems in `added`, as MemorySession did; `new MemorySession(history)` is
//   `await memorySession(history)`, whose history is added with addItems (and not recorded);
//   ReasoningPreservingSession extends the recorder instead of MemorySession;
// - imports: the package's public exports ('@openai/agents-core') instead of '../src/...', the
//   stubs from ./sdk-stubs.js; vitest's `vi.fn()` is jest's `jest.fn<() => void>()` (typed, as
//   handoff()'s onHandoff wants).
// - for this file, `structuredClone` (the runner's and the tests' callbacks') makes its copy of
//   this realm's objects, as it does outside jest (see structuredCloneInThisRealm): under jest its
//   copies are of another realm, whose plain objects the runner does not take for plain, and it
//   would hand any session, the SDK's own MemorySession too, an input item's bytes unconverted
//   ('persists binary payloads that share prefixes with history' fails so without the store).
// Left out: none (every test of the block uses only the package's public exports).
import { randomUUID } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { jest } from '@jest/globals';
import { z } from 'zod';
import {
  Agent,
  type AgentInputItem,
  type ModelRequest,
  type ModelResponse,
  type SessionHistoryTransactionArgs,
  type SessionHistoryTransactionAwareSession,
  RunContext,
  RunState,
  Runner,
  Usage,
  assistant,
  handoff,
  hostedMcpTool,
  type protocol,
  run,
  setDefaultModelProvider,
  setTracingDisabled,
  tool,
  user,
} from '@openai/agents-core';
import { OpenAIAgentsSessions, type StoreAgentSession } from '../../../src/integrations/openai-agents/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';
import { FakeModel, FakeModelProvider, TEST_MODEL_FUNCTION_CALL, TEST_MODEL_RESPONSE_BASIC, fakeModelMessage } from './sdk-stubs.js';

function getFirstTextContent(item: AgentInputItem): string | undefined {
  if (item.type !== 'message') {
    return undefined;
  }
  if (typeof item.content === 'string') {
    return item.content;
  }
  if (Array.isArray(item.content)) {
    const first = item.content[0] as { text?: string };
    return first?.text;
  }
  return undefined;
}

function getRequestInputItems(request: ModelRequest): AgentInputItem[] {
  return Array.isArray(request.input) ? request.input : [];
}

/**
 * structuredClone as Node gives it outside jest: a copy made of the caller's realm's objects.
 * Jest runs a test file (and the SDK and the store it imports) in a vm context whose
 * `structuredClone` is the main realm's, so a copy's plain objects and arrays have the main
 * realm's prototypes. The runner clones the turn's input (cloneItems) before it persists it, and
 * its sanitizeValueForSession turns bytes into data URLs only inside objects it takes for plain
 * (prototype === this realm's Object.prototype): under jest it hands any session, the SDK's own
 * MemorySession too, an input item's bytes unconverted. For this file, structuredClone copies
 * with Node's and then rebuilds the copy's plain objects and arrays in this realm.
 */
const nodeStructuredClone = globalThis.structuredClone;

function structuredCloneInThisRealm<T>(value: T, options?: Parameters<typeof structuredClone>[1]): T {
  return inThisRealm(nodeStructuredClone(value, options)) as T;
}

function inThisRealm(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inThisRealm);
  if (typeof value !== 'object' || value === null) return value;
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime());
  const prototype = Object.getPrototypeOf(value) as object | null;
  // Only plain objects: their prototype is some realm's Object.prototype, whose own is null.
  if (prototype === null || Object.getPrototypeOf(prototype) !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, inThisRealm(entry)]));
}

beforeAll(() => {
  globalThis.structuredClone = structuredCloneInThisRealm;
});

afterAll(() => {
  globalThis.structuredClone = nodeStructuredClone;
});

class StreamingModel extends FakeModel {
  constructor(resp: protocol.AssistantMessageItem) {
    super([{ output: [resp], usage: new Usage() }]);
    this._resp = resp;
  }
  private _resp: protocol.AssistantMessageItem;
  override async *getStreamedResponse(): AsyncIterable<protocol.StreamEvent> {
    yield {
      type: 'output_text_delta',
      delta: 'hi',
      providerData: {},
    } as any;
    yield {
      type: 'response_done',
      response: {
        id: 'r1',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        output: [this._resp],
      },
    } as any;
  }
}

eachDatabase((database) => {
  const store = storeFor(database);

  beforeAll(() => {
    setTracingDisabled(true);
    setDefaultModelProvider(new FakeModelProvider());
  });

  describe('sessions', () => {
    /**
     * The test's MemorySession, on the store: the store's session for a fresh id, with its
     * history added first (not recorded), wrapped in a recorder that delegates every method of
     * the SDK's Session, the optional ones the store's session has included, and records what
     * the runner handed it: `added` is the batches given to addItems, as MemorySession's was.
     */
    class RecordingSession implements SessionHistoryTransactionAwareSession {
      readonly #inner: StoreAgentSession;
      #added: AgentInputItem[][] = [];
      /** Every call, by method name, in order. */
      readonly calls: string[] = [];
      /** The arguments of every applyHistoryTransaction call. */
      readonly transactions: SessionHistoryTransactionArgs[] = [];

      constructor(inner: StoreAgentSession) {
        this.#inner = inner;
      }

      get added(): AgentInputItem[][] {
        return this.#added;
      }

      async getSessionId(): Promise<string> {
        this.calls.push('getSessionId');
        return this.#inner.getSessionId();
      }

      async getItems(limit?: number): Promise<AgentInputItem[]> {
        this.calls.push('getItems');
        return this.#inner.getItems(limit);
      }

      async addItems(items: AgentInputItem[]): Promise<void> {
        this.calls.push('addItems');
        this.#added.push(items);
        await this.#inner.addItems(items);
      }

      async popItem(): Promise<AgentInputItem | undefined> {
        this.calls.push('popItem');
        return this.#inner.popItem();
      }

      async clearSession(): Promise<void> {
        this.calls.push('clearSession');
        await this.#inner.clearSession();
      }

      async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
        this.calls.push('replaceHistoryWithCompaction');
        await this.#inner.replaceHistoryWithCompaction(items);
      }

      async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
        this.calls.push('applyHistoryTransaction');
        this.transactions.push(args);
        await this.#inner.applyHistoryTransaction(args);
      }
    }

    /** `new MemorySession(history)`: a recorder (of `Kind`) on a fresh session of the store with `history`. */
    async function memorySession<S extends RecordingSession = RecordingSession>(
      history: AgentInputItem[] = [],
      Kind: new (inner: StoreAgentSession) => S = RecordingSession as new (inner: StoreAgentSession) => S,
    ): Promise<S> {
      const inner = new OpenAIAgentsSessions(store.integration).forSession(`run-sessions-${randomUUID()}`);
      if (history.length > 0) await inner.addItems(history);
      return new Kind(inner);
    }

    class RecordingModel extends FakeModel {
      lastRequest: ModelRequest | undefined;

      override async getResponse(request: ModelRequest): Promise<ModelResponse> {
        this.lastRequest = request;
        return super.getResponse(request);
      }
    }

    it('uses session history and stores run results', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('response')],
        },
      ]);
      const agent = new Agent({ name: 'SessionAgent', model });
      const historyItem = fakeModelMessage('earlier message') as AgentInputItem;
      const session = await memorySession([historyItem]);
      const runner = new Runner();

      await runner.run(agent, 'How are you?', { session });

      const recordedInput = model.lastRequest?.input as AgentInputItem[];
      expect(Array.isArray(recordedInput)).toBe(true);
      expect(recordedInput[0]).toEqual(historyItem);
      expect(recordedInput[1]).toMatchObject({
        role: 'user',
        content: 'How are you?',
      });

      expect(session.added).toHaveLength(1);
      expect(session.added[0][0]).toMatchObject({
        role: 'user',
        content: 'How are you?',
      });
      expect(session.added[0][1]).toMatchObject({ role: 'assistant' });
      const savedAssistant = session.added[0][1] as protocol.AssistantMessageItem;
      const firstPart = Array.isArray(savedAssistant.content) ? (savedAssistant.content[0] as { providerData?: unknown }) : undefined;
      expect(firstPart?.providerData).toEqual({ annotations: [] });
    });

    it('persists accepted tool results before surfacing cancellation', async () => {
      const controller = new AbortController();
      const abortReason = new Error('stop after tool result');
      let markToolStarted: (() => void) | undefined;
      const toolStarted = new Promise<void>((resolve) => {
        markToolStarted = resolve;
      });
      let releaseTool: (() => void) | undefined;
      const toolCanFinish = new Promise<void>((resolve) => {
        releaseTool = resolve;
      });
      const abortableTool = tool({
        name: 'test',
        description: 'finishes after cancellation',
        parameters: z.object({ test: z.string() }),
        execute: async () => {
          markToolStarted?.();
          await toolCanFinish;
          return 'completed tool result';
        },
      });
      const model = new FakeModel([
        {
          output: [{ ...TEST_MODEL_FUNCTION_CALL }],
          usage: new Usage(),
        },
      ]);
      const agent = new Agent({
        name: 'SessionCancellationAgent',
        model,
        tools: [abortableTool],
      });
      const session = await memorySession();

      const runPromise = run(agent, 'start', {
        session,
        signal: controller.signal,
      });
      const rejection = expect(runPromise).rejects.toBe(abortReason);
      await toolStarted;

      controller.abort(abortReason);
      releaseTool?.();

      await rejection;
      expect(session.added).toHaveLength(1);
      expect(session.added[0].map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_result']);
    });

    it('does not persist a cancelled tool turn again when its state resumes', async () => {
      const controller = new AbortController();
      const abortReason = new Error('stop before the next model turn');
      let markToolStarted: (() => void) | undefined;
      const toolStarted = new Promise<void>((resolve) => {
        markToolStarted = resolve;
      });
      let releaseTool: (() => void) | undefined;
      const toolCanFinish = new Promise<void>((resolve) => {
        releaseTool = resolve;
      });
      const abortableTool = tool({
        name: 'test',
        description: 'finishes after cancellation',
        parameters: z.object({ test: z.string() }),
        execute: async () => {
          markToolStarted?.();
          await toolCanFinish;
          return 'completed tool result';
        },
      });
      const model = new FakeModel([
        {
          output: [{ ...TEST_MODEL_FUNCTION_CALL }],
          usage: new Usage(),
        },
        {
          output: [fakeModelMessage('resumed response')],
          usage: new Usage(),
        },
      ]);
      const agent = new Agent({
        name: 'SessionCancellationResumeAgent',
        model,
        tools: [abortableTool],
      });
      const state = new RunState(new RunContext(), 'start', agent, 10);
      const session = await memorySession([user('start')]);

      const runPromise = run(agent, state, {
        session,
        signal: controller.signal,
      });
      const rejection = expect(runPromise).rejects.toBe(abortReason);
      await toolStarted;

      controller.abort(abortReason);
      releaseTool?.();

      await rejection;
      expect(session.added).toHaveLength(1);
      expect(session.added[0].map((item) => item.type)).toEqual(['function_call', 'function_call_result']);

      await run(agent, state, { session });

      expect(session.added).toHaveLength(2);
      expect(session.added[1].map((item) => item.type)).toEqual(['message']);
      expect(session.added.flat().filter((item) => item.type === 'function_call' && item.callId === TEST_MODEL_FUNCTION_CALL.callId)).toHaveLength(1);
    });

    it('does not execute or repersist a handoff skipped by cancellation', async () => {
      const controller = new AbortController();
      const abortReason = new Error('stop before the handoff');
      let markToolStarted: (() => void) | undefined;
      const toolStarted = new Promise<void>((resolve) => {
        markToolStarted = resolve;
      });
      let releaseTool: (() => void) | undefined;
      const toolCanFinish = new Promise<void>((resolve) => {
        releaseTool = resolve;
      });
      const abortableTool = tool({
        name: 'test',
        description: 'finishes after cancellation',
        parameters: z.object({ test: z.string() }),
        execute: async () => {
          markToolStarted?.();
          await toolCanFinish;
          return 'completed tool result';
        },
      });
      const agentB = new Agent({
        name: 'SessionCancellationHandoffTarget',
        model: new FakeModel([
          {
            output: [fakeModelMessage('handoff response')],
            usage: new Usage(),
          },
        ]),
      });
      const onHandoff = jest.fn<() => void>();
      const handoffToB = handoff(agentB, { onHandoff });
      const handoffCall: protocol.FunctionCallItem = {
        id: 'handoff-call',
        type: 'function_call',
        name: handoffToB.toolName,
        callId: 'handoff-call',
        status: 'completed',
        arguments: '{}',
      };
      const agentA = new Agent({
        name: 'SessionCancellationHandoffSource',
        model: new FakeModel([
          {
            output: [{ ...TEST_MODEL_FUNCTION_CALL }, handoffCall],
            usage: new Usage(),
          },
          {
            output: [fakeModelMessage('resumed source response')],
            usage: new Usage(),
          },
        ]),
        tools: [abortableTool],
        handoffs: [handoffToB],
      });
      const state = new RunState(new RunContext(), 'start', agentA, 10);
      const session = await memorySession([user('start')]);

      const runPromise = run(agentA, state, {
        session,
        signal: controller.signal,
      });
      const rejection = expect(runPromise).rejects.toBe(abortReason);
      await toolStarted;

      controller.abort(abortReason);
      releaseTool?.();

      await rejection;
      expect(state._currentStep?.type).toBe('next_step_run_again');
      expect(onHandoff).not.toHaveBeenCalled();
      expect(session.added).toHaveLength(1);

      const result = await run(agentA, state, { session });

      expect(result.finalOutput).toBe('resumed source response');
      expect(onHandoff).not.toHaveBeenCalled();
      expect(session.added).toHaveLength(2);
      expect(session.added[1].map((item) => item.type)).toEqual(['message']);
      expect(session.added.flat().filter((item) => item.type === 'function_call' && item.callId === TEST_MODEL_FUNCTION_CALL.callId)).toHaveLength(1);
      expect(
        session.added.flat().filter((item) => item.type === 'function_call_result' && item.callId === handoffCall.callId && item.status === 'incomplete'),
      ).toHaveLength(1);
    });

    it('applies runner-level reasoningItemIdPolicy to replayed session history', async () => {
      class ReasoningPreservingSession extends RecordingSession {
        preserveReasoningItemIdsForPersistence(): boolean {
          return true;
        }
      }

      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('response')],
        },
      ]);
      const agent = new Agent({ name: 'SessionReasoningAgent', model });
      const session = await memorySession(
        [
          {
            id: 'rs_persisted',
            type: 'reasoning',
            content: [{ type: 'input_text', text: 'stored reasoning' }],
          },
        ],
        ReasoningPreservingSession,
      );
      const runner = new Runner({ reasoningItemIdPolicy: 'omit' });

      await runner.run(agent, 'new input', { session });

      expect(model.lastRequest).toBeDefined();
      const reasoningItem = getRequestInputItems(model.lastRequest!).find((item): item is protocol.ReasoningItem => item.type === 'reasoning');
      expect(reasoningItem).toEqual({
        type: 'reasoning',
        content: [{ type: 'input_text', text: 'stored reasoning' }],
      });
    });

    it('allows list inputs with session history and no session input callback', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('list response')],
        },
      ]);
      const agent = new Agent({ name: 'ListSession', model });
      const historyItem = user('History stays');
      const session = await memorySession([historyItem]);
      const runner = new Runner();

      await runner.run(agent, [user('Hello')], { session });

      const recordedInput = model.lastRequest?.input as AgentInputItem[];
      expect(Array.isArray(recordedInput)).toBe(true);
      expect(recordedInput).toHaveLength(2);
      expect(getFirstTextContent(recordedInput[0])).toBe('History stays');
      expect(getFirstTextContent(recordedInput[1])).toBe('Hello');

      expect(session.added).toHaveLength(1);
      expect(getFirstTextContent(session.added[0][0])).toBe('Hello');
      expect(session.added[0][1] && typeof session.added[0][1] === 'object' && 'type' in session.added[0][1]).toBe(true);
    });

    it('allows list inputs when session input callback is provided', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('response')],
        },
      ]);
      const agent = new Agent({ name: 'SessionCallbackAgent', model });
      const sessionHistory: AgentInputItem[] = [user('Keep this history item'), assistant('Drop this assistant reply')];
      const session = await memorySession([...sessionHistory]);
      const runner = new Runner({
        sessionInputCallback: (history, newItems) => {
          return history.filter((item) => item.type === 'message' && 'role' in item && item.role === 'user').concat(newItems);
        },
      });

      await runner.run(agent, [user('New message')], { session });

      const recordedInput = model.lastRequest?.input as AgentInputItem[];
      expect(Array.isArray(recordedInput)).toBe(true);
      expect(recordedInput).toHaveLength(2);
      expect(recordedInput[0].type === 'message' && 'role' in recordedInput[0] && recordedInput[0].role).toBe('user');
      expect(getFirstTextContent(recordedInput[0])).toBe('Keep this history item');
      expect(recordedInput[1].type === 'message' && 'role' in recordedInput[1] && recordedInput[1].role).toBe('user');
      expect(getFirstTextContent(recordedInput[1])).toBe('New message');
    });

    it('supports async session input callback', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('response')],
        },
      ]);
      const agent = new Agent({ name: 'AsyncSessionCallback', model });
      const session = await memorySession([user('Older message'), user('Newest history')]);
      const runner = new Runner();

      await runner.run(agent, [user('Fresh input')], {
        session,
        sessionInputCallback: async (history, newItems) => {
          await Promise.resolve();
          return history.slice(-1).concat(newItems);
        },
      });

      const recordedInput = model.lastRequest?.input as AgentInputItem[];
      expect(Array.isArray(recordedInput)).toBe(true);
      expect(recordedInput).toHaveLength(2);
      expect(getFirstTextContent(recordedInput[0])).toBe('Newest history');
      expect(getFirstTextContent(recordedInput[1])).toBe('Fresh input');
    });

    it('persists transformed session input from callback', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('session response')],
        },
      ]);
      const agent = new Agent({ name: 'SessionTransform', model });
      const session = await memorySession();
      const runner = new Runner();
      const original = 'Sensitive payload';
      const redacted = '[redacted]';

      await runner.run(agent, original, {
        session,
        sessionInputCallback: (history, newItems) => {
          expect(history).toHaveLength(0);
          if (newItems[0] && typeof newItems[0] === 'object') {
            (newItems[0] as protocol.UserMessageItem).content = redacted;
          }
          return history.concat(newItems);
        },
      });

      const recordedInput = model.lastRequest?.input as AgentInputItem[];
      expect(recordedInput[recordedInput.length - 1]).toMatchObject({
        role: 'user',
        content: redacted,
      });

      expect(session.added).toHaveLength(1);
      const persistedTurn = session.added[0];
      expect(persistedTurn[0]).toMatchObject({
        role: 'user',
        content: redacted,
      });
    });

    it('does not persist duplicate user input when a model retry succeeds in the same run', async () => {
      class RetryRecordingModel extends FakeModel {
        requests: ModelRequest[] = [];
        attempts = 0;

        override async getResponse(request: ModelRequest): Promise<ModelResponse> {
          this.requests.push({
            ...request,
            input: Array.isArray(request.input) ? (JSON.parse(JSON.stringify(request.input)) as AgentInputItem[]) : request.input,
          });
          this.attempts += 1;

          if (this.attempts === 1) {
            const error = new Error('temporary failure');
            (error as Error & { statusCode?: number }).statusCode = 503;
            throw error;
          }

          return await super.getResponse(request);
        }
      }

      const model = new RetryRecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('retry response')],
          usage: new Usage({ requests: 1 }),
        },
      ]);
      const agent = new Agent({
        name: 'RetrySessionAgent',
        model,
        modelSettings: {
          retry: {
            maxRetries: 1,
            backoff: { initialDelayMs: 0, jitter: false },
            policy: ({ normalized }) => normalized.statusCode === 503,
          },
        },
      });
      const session = await memorySession();
      const runner = new Runner();

      const result = await runner.run(agent, 'Retry me once', { session });

      expect(result.finalOutput).toBe('retry response');
      expect(model.attempts).toBe(2);
      expect(model.requests).toHaveLength(2);
      expect(getFirstTextContent(getRequestInputItems(model.requests[0])[0]!)).toBe('Retry me once');
      expect(getFirstTextContent(getRequestInputItems(model.requests[1])[0]!)).toBe('Retry me once');

      expect(session.added).toHaveLength(1);
      const persistedTexts = session.added[0].map((item) => getFirstTextContent(item)).filter((text): text is string => typeof text === 'string');
      expect(persistedTexts.filter((text) => text === 'Retry me once')).toHaveLength(1);
      expect(result.state.usage.requests).toBe(2);
    });

    it('does not duplicate history when callback clones entries', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('clone response')],
        },
      ]);
      const history = [user('Existing history item')];
      const session = await memorySession(history);
      const agent = new Agent({ name: 'CloneSession', model });
      const runner = new Runner();

      await runner.run(agent, [user('Fresh input')], {
        session,
        sessionInputCallback: (incomingHistory, newItems) => {
          const clonedHistory = incomingHistory.map((item) => structuredClone(item));
          const clonedNewItems = newItems.map((item) => structuredClone(item));
          return clonedHistory.concat(clonedNewItems);
        },
      });

      expect(session.added).toHaveLength(1);
      const [persistedItems] = session.added;
      const persistedUsers = persistedItems.filter(
        (item): item is protocol.UserMessageItem => item.type === 'message' && 'role' in item && item.role === 'user',
      );
      expect(persistedUsers).toHaveLength(1);
      expect(getFirstTextContent(persistedUsers[0])).toBe('Fresh input');
    });

    it.each([
      { name: 'run', stream: false },
      { name: 'stream', stream: true },
    ])('does not grow session history from repeated references across $name turns', async ({ stream }) => {
      const model = stream
        ? new StreamingModel(fakeModelMessage('assistant'))
        : new FakeModel(
            Array.from({ length: 3 }, (_, turn) => ({
              ...TEST_MODEL_RESPONSE_BASIC,
              output: [fakeModelMessage(`assistant ${turn}`)],
            })),
          );
      const agent = new Agent({ name: 'RepeatedHistorySession', model });
      const session = await memorySession();
      const sessionInputCallback = (history: AgentInputItem[], newItems: AgentInputItem[]) => {
        if (history.length === 0) {
          return newItems;
        }
        return history.concat(history[0], newItems);
      };

      for (let turn = 0; turn < 3; turn += 1) {
        if (stream) {
          const result = await run(agent, `user ${turn}`, {
            session,
            sessionInputCallback,
            stream: true,
          });
          await result.completed;
        } else {
          await run(agent, `user ${turn}`, {
            session,
            sessionInputCallback,
          });
        }
      }

      const storedItems = await session.getItems();
      const storedUserMessages = storedItems.filter(
        (item): item is protocol.UserMessageItem => item.type === 'message' && 'role' in item && item.role === 'user',
      );
      expect(storedUserMessages.map((item) => getFirstTextContent(item))).toEqual(['user 0', 'user 1', 'user 2']);
      expect(storedItems).toHaveLength(6);
    });

    it('persists reordered new items ahead of matching history', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('reordered response')],
        },
      ]);
      const historyMessage = user('Repeatable message');
      const newMessage = user('Repeatable message');
      const session = await memorySession([historyMessage]);
      const agent = new Agent({ name: 'ReorderedSession', model });
      const runner = new Runner({
        sessionInputCallback: (history, newItems) => newItems.concat(history),
      });

      await runner.run(agent, [newMessage], { session });

      expect(session.added).toHaveLength(1);
      const [persisted] = session.added;
      const persistedUsers = persisted.filter((item): item is protocol.UserMessageItem => item.type === 'message' && 'role' in item && item.role === 'user');
      expect(persistedUsers).toHaveLength(1);
      expect(getFirstTextContent(persistedUsers[0])).toBe('Repeatable message');
    });

    it('persists binary payloads that share prefixes with history', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('binary response')],
        },
      ]);
      const historyPayload = new Uint8Array(32);
      const newPayload = new Uint8Array(32);
      for (let i = 0; i < 32; i++) {
        const value = i < 20 ? 0xaa : i;
        historyPayload[i] = value;
        newPayload[i] = value;
      }
      historyPayload[31] = 0xbb;
      newPayload[31] = 0xcc;

      const session = await memorySession([user('History with binary', { payload: historyPayload })]);
      const agent = new Agent({ name: 'BinarySession', model });
      const runner = new Runner();

      await runner.run(agent, [user('Binary input')], {
        session,
        sessionInputCallback: (history, newItems) => {
          const clonedHistory = history.map((item) => structuredClone(item));
          const updatedNewItems = newItems.map((item) => {
            const cloned = structuredClone(item);
            cloned.providerData = { payload: newPayload };
            return cloned;
          });
          return clonedHistory.concat(updatedNewItems);
        },
      });

      expect(session.added).toHaveLength(1);
      const [persistedItems] = session.added;
      const persistedPayloads = persistedItems
        .filter((item): item is protocol.UserMessageItem => item.type === 'message' && 'role' in item && item.role === 'user' && item.providerData?.payload)
        .map((item) => item.providerData?.payload);
      const expectedNewPayload = `data:text/plain;base64,${Buffer.from(newPayload).toString('base64')}`;
      const expectedHistoryPayload = `data:text/plain;base64,${Buffer.from(historyPayload).toString('base64')}`;
      expect(persistedPayloads).toContain(expectedNewPayload);
      expect(persistedPayloads).not.toContain(expectedHistoryPayload);
    });

    it('throws when session input callback returns invalid data', async () => {
      const model = new RecordingModel([
        {
          ...TEST_MODEL_RESPONSE_BASIC,
          output: [fakeModelMessage('response')],
        },
      ]);
      const agent = new Agent({ name: 'InvalidCallback', model });
      const session = await memorySession([user('history')]);
      const runner = new Runner();

      await expect(
        runner.run(agent, 'Hello', {
          session,
          sessionInputCallback: () => 'not-an-array' as unknown as AgentInputItem[],
        }),
      ).rejects.toThrow('Session input callback must return an array of AgentInputItem objects.');
    });

    it('stores function tool call and structured output in session', async () => {
      const functionCall: protocol.FunctionCallItem = {
        type: 'function_call',
        callId: 'call-weather',
        name: 'weather_lookup',
        status: 'completed',
        arguments: JSON.stringify({ city: 'San Francisco' }),
        providerData: { source: 'openai' },
      } as protocol.FunctionCallItem;

      const model = new FakeModel([
        {
          output: [functionCall],
          usage: new Usage(),
        },
        {
          output: [fakeModelMessage('Weather retrieved.')],
          usage: new Usage(),
        },
      ]);

      const weatherTool = tool({
        name: 'weather_lookup',
        description: 'Looks up weather information',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => [
          {
            type: 'text',
            text: `Weather for ${city}`,
          },
        ],
      });

      const agent = new Agent({
        name: 'FunctionToolAgent',
        model,
        tools: [weatherTool],
      });

      const session = await memorySession();
      const runner = new Runner();

      await runner.run(agent, 'What is the weather in San Francisco?', {
        session,
      });

      expect(session.added).toHaveLength(1);
      const savedItems = session.added[0];
      expect(savedItems).toHaveLength(4);
      const savedFunctionCall = savedItems[1] as protocol.FunctionCallItem;
      expect(savedFunctionCall.providerData).toEqual({ source: 'openai' });
      expect(savedFunctionCall.arguments).toBe(JSON.stringify({ city: 'San Francisco' }));
      const savedResult = savedItems[2] as protocol.FunctionCallResultItem & {
        output: protocol.ToolCallStructuredOutput[];
      };
      expect(Array.isArray(savedResult.output)).toBe(true);
      expect(savedResult.output[0]).toMatchObject({
        type: 'input_text',
        text: 'Weather for San Francisco',
      });
    });

    it('stores hosted tool call metadata when approval is required', async () => {
      const hostedCall: protocol.HostedToolCallItem = {
        type: 'hosted_tool_call',
        id: 'approval-1',
        name: 'mcp_approval_request',
        status: 'completed',
        providerData: {
          type: 'mcp_approval_request',
          server_label: 'demo_server',
          name: 'file_search',
          id: 'approval-1',
          arguments: '{"query":"invoices"}',
        },
      } as protocol.HostedToolCallItem;

      const model = new FakeModel([
        {
          output: [hostedCall],
          usage: new Usage(),
        },
      ]);

      const hostedTool = hostedMcpTool({
        serverLabel: 'demo_server',
        serverUrl: 'https://example.com',
        requireApproval: {
          always: { toolNames: ['file_search'] },
        },
      });

      const agent = new Agent({
        name: 'HostedToolAgent',
        model,
        tools: [hostedTool],
      });

      const session = await memorySession();
      const runner = new Runner();

      const result = await runner.run(agent, 'Find latest invoices', {
        session,
      });

      expect(result.interruptions).toHaveLength(1);
      expect(session.added).toHaveLength(1);
      const savedItems = session.added[0];
      expect(savedItems).toHaveLength(2);
      const savedHostedCall = savedItems[1] as protocol.HostedToolCallItem & {
        providerData: Record<string, unknown>;
      };
      expect(savedHostedCall.providerData).toEqual(hostedCall.providerData);
      expect(savedHostedCall.id).toBe('approval-1');
    });

    it('prevents duplicate function_call items when resuming from interruption after tool approval', async () => {
      // Regression test for issue #701
      //
      // Bug: When resuming a turn after approving a tool call, duplicate function_call items
      // were saved to the session. The bug occurred because _currentTurnPersistedItemCount
      // was incorrectly reset to 0 after resolveInterruptedTurn returned next_step_run_again,
      // causing saveToSession to save all items from the beginning of the turn, including
      // the already-persisted function_call item.
      //
      // Expected behavior: Only 1 function_call item should be saved to the session.
      // Buggy behavior: 2 function_call items (duplicate) were saved.
      //
      // Test scenario:
      // 1. Initial run with tool requiring approval creates an interruption
      // 2. Tool call is approved
      // 3. Run is resumed with the approved state
      // 4. Session should contain exactly 1 function_call item (not 2)

      const getWeatherTool = tool({
        name: 'get_weather',
        description: 'Get weather for a city',
        parameters: z.object({ city: z.string() }),
        needsApproval: async () => true, // Require approval for all calls
        execute: async ({ city }) => `Sunny, 72°F in ${city}`,
      });

      const model = new FakeModel([
        // First response: tool call that requires approval
        {
          output: [
            {
              type: 'function_call',
              id: 'fc_1',
              callId: 'call_weather_1',
              name: 'get_weather',
              status: 'completed',
              arguments: JSON.stringify({ city: 'Oakland' }),
              providerData: {},
            } as protocol.FunctionCallItem,
          ],
          usage: new Usage(),
        },
        // Second response: after approval, final answer
        {
          output: [fakeModelMessage('The weather is sunny in Oakland.')],
          usage: new Usage(),
        },
      ]);

      const agent = new Agent({
        name: 'Assistant',
        instructions: 'Use get_weather tool to answer weather questions.',
        model,
        tools: [getWeatherTool],
        toolUseBehavior: 'run_llm_again', // Must use 'run_llm_again' so resolveInterruptedTurn returns next_step_run_again
      });

      const session = await memorySession();

      // Use sessionInputCallback to match the scenario from issue #701
      const sessionInputCallback = async (historyItems: AgentInputItem[], newItems: AgentInputItem[]) => {
        return [...historyItems, ...newItems];
      };

      // Step 1: Initial run creates an interruption for tool approval
      let result = await run(agent, [{ role: 'user', content: "What's the weather in Oakland?" }], { session, sessionInputCallback });

      // Step 2: Approve the tool call
      for (const interruption of result.interruptions || []) {
        result.state.approve(interruption);
      }

      // Step 3: Resume the run with the approved state
      // Note: No sessionInputCallback on resume - this is part of the bug scenario
      result = await run(agent, result.state, { session });

      // Step 4: Verify only one function_call item exists in the session
      const allItems = await session.getItems();
      const functionCalls = allItems.filter((item): item is protocol.FunctionCallItem => item.type === 'function_call' && item.callId === 'call_weather_1');

      // The bug would cause 2 function_call items to be saved (duplicate)
      // The fix ensures only 1 function_call item is saved
      expect(functionCalls).toHaveLength(1);
    });

    it('does not duplicate already persisted items when the resumed run continues into additional turns', async () => {
      // Regression test for session persistence across resumed runs that execute additional turns.
      //
      // Scenario:
      // 1. First run is interrupted for tool approval, persisting the initial function_call.
      // 2. The run is resumed and continues into another tool call (additional turn).
      //
      // Expected behavior: Session history must not contain duplicate function_call items from the
      // already-persisted portion of the run.

      const getWeatherTool = tool({
        name: 'get_weather',
        description: 'Get weather for a city',
        parameters: z.object({ city: z.string() }),
        needsApproval: async () => true,
        execute: async ({ city }) => `Sunny, 72°F in ${city}`,
      });

      const getTimeTool = tool({
        name: 'get_time',
        description: 'Get the current time for a city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `12:00PM in ${city}`,
      });

      const model = new FakeModel([
        // First response: tool call that requires approval.
        {
          output: [
            {
              type: 'function_call',
              id: 'fc_1',
              callId: 'call_weather_1',
              name: 'get_weather',
              status: 'completed',
              arguments: JSON.stringify({ city: 'Oakland' }),
              providerData: {},
            } as protocol.FunctionCallItem,
          ],
          usage: new Usage(),
        },
        // Second response: after approval, request another tool call without approval.
        {
          output: [
            {
              type: 'function_call',
              id: 'fc_2',
              callId: 'call_time_1',
              name: 'get_time',
              status: 'completed',
              arguments: JSON.stringify({ city: 'Oakland' }),
              providerData: {},
            } as protocol.FunctionCallItem,
          ],
          usage: new Usage(),
        },
        // Third response: final answer after tool results are available.
        {
          output: [fakeModelMessage('It is sunny in Oakland and it is noon.')],
          usage: new Usage(),
        },
      ]);

      const agent = new Agent({
        name: 'Assistant',
        instructions: 'Use get_weather and get_time tools to answer questions about Oakland.',
        model,
        tools: [getWeatherTool, getTimeTool],
        toolUseBehavior: 'run_llm_again',
      });

      const session = await memorySession();

      const sessionInputCallback = async (historyItems: AgentInputItem[], newItems: AgentInputItem[]) => {
        return [...historyItems, ...newItems];
      };

      // Step 1: Initial run creates an interruption for tool approval.
      let result = await run(
        agent,
        [
          {
            role: 'user',
            content: "What's the weather and time in Oakland?",
          },
        ],
        { session, sessionInputCallback },
      );

      for (const interruption of result.interruptions || []) {
        result.state.approve(interruption);
      }

      // Step 2: Resume the run; it continues into another turn due to a second tool call.
      result = await run(agent, result.state, { session });

      const allItems = await session.getItems();
      const weatherCalls = allItems.filter((item): item is protocol.FunctionCallItem => item.type === 'function_call' && item.callId === 'call_weather_1');

      expect(weatherCalls).toHaveLength(1);
    });
  });
});
