// balanceToolCalls against the AI SDK itself: what it finds orphaned is exactly
// what generateText rejects with AI_MissingToolResultsError, and the history it
// returns is one generateText accepts. Runs against whichever `ai` jest maps.
import { generateText, jsonSchema, MissingToolResultsError, tool, type ModelMessage, type ToolCallPart, type ToolResultPart } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { balanceToolCalls, toolCallRepairMessage, type ToolCallRepair } from '../../src/stores/messages/tool-call-repair.js';

const INTERRUPTED = 'The tool call was interrupted before it returned a result.';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (...content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>): ModelMessage => ({ role: 'assistant', content });
const toolMessage = (...content: Extract<ModelMessage, { role: 'tool' }>['content']): ModelMessage => ({ role: 'tool', content });
const call = (toolCallId: string, toolName = 'weather', extra: Partial<ToolCallPart> = {}): ToolCallPart => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: { city: 'Paris' },
  ...extra,
});
const result = (toolCallId: string, toolName = 'weather'): ToolResultPart => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: { type: 'json', value: { celsius: 21 } },
});
const interrupted = (toolCallId: string, toolName = 'weather', value = INTERRUPTED) => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: { type: 'error-text', value },
});

const mockModel = () =>
  new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
      warnings: [],
    },
  });

const weatherTool = tool({
  needsApproval: true,
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
  execute: async () => ({ celsius: 21 }),
});

// ai 7 refuses system messages in `messages` unless told; ai 6 takes them and ignores the option.
const systemInMessages = { allowSystemInMessages: true };

/** The prompt the model received, or the error generateText threw. */
async function send(messages: ModelMessage[]) {
  const model = mockModel();
  const outcome = await generateText({ model, messages, tools: { weather: weatherTool }, ...systemInMessages }).then(
    ({ text }) => ({ text, error: null }),
    (error: unknown) => ({ text: null, error }),
  );
  if (outcome.error !== null) {
    expect(model.doGenerateCalls).toHaveLength(0);
    return { prompt: null, error: outcome.error };
  }
  expect(outcome.text).toBe('ok');
  return { prompt: model.doGenerateCalls[0].prompt, error: null };
}

async function expectMissing(messages: ModelMessage[], toolCallIds: string[]) {
  const { error } = await send(messages);
  expect(MissingToolResultsError.isInstance(error)).toBe(true);
  expect((error as MissingToolResultsError).toolCallIds).toEqual(toolCallIds);
}

const withoutPart = (messages: ModelMessage[], part: unknown): ModelMessage[] =>
  messages.map((message) =>
    Array.isArray(message.content) && message.content.includes(part as never)
      ? ({ ...message, content: message.content.filter((p: unknown) => p !== part) } as ModelMessage)
      : message,
  );

const repaired = (history: ModelMessage[], repair: ToolCallRepair<ModelMessage>): ModelMessage[] => [
  ...repair.messages,
  ...history.slice(repair.sourceMessageCount),
];

/** Balances an unbalanced history and checks, through the SDK, both the history and the result. */
async function repair(history: ModelMessage[]) {
  const before = structuredClone(history);
  const r = balanceToolCalls(history);
  expect(r).not.toBeNull();
  expect(history).toEqual(before);
  const unbalanced = await send(history);
  expect(MissingToolResultsError.isInstance(unbalanced.error)).toBe(true);
  const orphanIds = r!.orphans.map((orphan) => orphan.toolCallId);
  expect(orphanIds).toEqual(expect.arrayContaining([...(unbalanced.error as MissingToolResultsError).toolCallIds]));
  const balanced = repaired(history, r!);
  expect(balanceToolCalls(balanced)).toBeNull();
  // Every synthetic result is needed: without any one of them, the SDK names its call.
  for (const orphan of r!.orphans) await expectMissing(withoutPart(balanced, orphan.result), [orphan.toolCallId]);
  const { prompt, error } = await send(balanced);
  expect(error).toBeNull();
  return { repair: r!, balanced, prompt: prompt! };
}

/** Nothing to repair, and the SDK agrees. */
async function expectBalanced(history: ModelMessage[]) {
  expect(balanceToolCalls(history)).toBeNull();
  const { prompt, error } = await send(history);
  expect(error).toBeNull();
  return prompt!;
}

describe('balanceToolCalls', () => {
  test('one orphan at the end: a tool message with its error result is added after the call', async () => {
    const history = [user('weather in Paris?'), assistant({ type: 'text', text: 'Let me look.' }, call('c1'))];
    const { repair: r, prompt } = await repair(history);
    expect(r.orphans).toEqual([{ toolCallId: 'c1', toolName: 'weather', index: 1, result: interrupted('c1') }]);
    expect(r.sourceMessageCount).toBe(2);
    expect(r.messages).toEqual([history[0], history[1], { role: 'tool', content: [interrupted('c1')] }]);
    expect(r.messages[0]).toBe(history[0]);
    expect(r.messages[1]).toBe(history[1]);
    // The model reads the error as the tool's answer.
    expect(prompt.at(-1)).toEqual({ role: 'tool', content: [expect.objectContaining(interrupted('c1'))] });
    expect(prompt.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'text' }, { type: 'tool-call', toolCallId: 'c1' }] });
  });

  test('several orphans in one assistant message are answered in the order of the calls, before the next user message', async () => {
    const history = [
      user('plan a trip'),
      assistant(call('c2', 'hotels'), call('c1'), call('c3', 'trains')),
      user('hurry up'),
      assistant({ type: 'text', text: 'sure' }),
    ];
    const { repair: r, balanced, prompt } = await repair(history);
    expect(r.orphans.map(({ toolCallId, toolName, index }) => ({ toolCallId, toolName, index }))).toEqual([
      { toolCallId: 'c2', toolName: 'hotels', index: 1 },
      { toolCallId: 'c1', toolName: 'weather', index: 1 },
      { toolCallId: 'c3', toolName: 'trains', index: 1 },
    ]);
    expect(r.sourceMessageCount).toBe(2);
    expect(r.messages).toEqual([
      history[0],
      history[1],
      { role: 'tool', content: [interrupted('c2', 'hotels'), interrupted('c1'), interrupted('c3', 'trains')] },
    ]);
    expect(balanced.slice(3)).toEqual(history.slice(2));
    expect(balanced[3]).toBe(history[2]);
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(prompt[2].content).toEqual([
      expect.objectContaining(interrupted('c2', 'hotels')),
      expect.objectContaining(interrupted('c1')),
      expect.objectContaining(interrupted('c3', 'trains')),
    ]);
  });

  test('orphans in two assistant messages with a user message between are both answered, each after its own call', async () => {
    const history = [user('a'), assistant(call('c1')), user('b'), assistant(call('c2', 'news')), user('c')];
    const { repair: r, balanced, prompt } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([
      ['c1', 1],
      ['c2', 3],
    ]);
    expect(r.sourceMessageCount).toBe(4);
    expect(r.messages).toEqual([
      history[0],
      history[1],
      { role: 'tool', content: [interrupted('c1')] },
      history[2],
      history[3],
      { role: 'tool', content: [interrupted('c2', 'news')] },
    ]);
    expect(r.messages[3]).toBe(history[2]);
    expect(balanced).toHaveLength(7);
    expect(balanced[6]).toBe(history[4]);
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'user']);
    // The SDK alone sees only the first at the first user message.
    await expectMissing(history.slice(0, 3), ['c1']);
  });

  test('a partial tool message: the missing result is added to a copy of it, after its own parts, other fields kept', async () => {
    const answered = { ...toolMessage(result('c1')), providerOptions: { test: { cache: true } } };
    const stored = Object.assign(answered, { seq: 7, id: 'm-7', metadata: { source: 'worker' } });
    const history = [user('two cities'), assistant(call('c1'), call('c2')), stored, assistant({ type: 'text', text: 'Paris is warm.' }), user('and Rome?')];
    const { repair: r, prompt } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c2', 1]]);
    expect(r.sourceMessageCount).toBe(3);
    expect(r.messages).toHaveLength(3);
    const copy = r.messages[2] as typeof stored;
    expect(copy).not.toBe(stored);
    expect(copy).toEqual({ ...stored, content: [result('c1'), interrupted('c2')] });
    expect(copy.content[0]).toBe(stored.content[0]);
    expect(stored.content).toHaveLength(1);
    expect(prompt[2]).toEqual({
      role: 'tool',
      content: [expect.objectContaining({ toolCallId: 'c1', output: result('c1').output }), expect.objectContaining(interrupted('c2'))],
      providerOptions: { test: { cache: true } },
    });
  });

  test('a tool message after the call that is not directly after it is not extended: a new one is added', async () => {
    const history = [user('a'), assistant(call('c1')), assistant(call('c2')), toolMessage(result('c2')), user('b')];
    const { repair: r } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 1]]);
    expect(r.sourceMessageCount).toBe(2);
    expect(r.messages).toEqual([history[0], history[1], { role: 'tool', content: [interrupted('c1')] }]);
  });

  test('provider-executed calls are not orphans: their results live in the assistant message', async () => {
    const providerRan = assistant(call('p1', 'web_search', { providerExecuted: true }), {
      type: 'tool-result',
      toolCallId: 'p1',
      toolName: 'web_search',
      output: { type: 'text', value: 'found' },
    });
    await expectBalanced([user('search'), providerRan, user('thanks')]);
    await expectBalanced([user('search'), assistant(call('p2', 'web_search', { providerExecuted: true })), user('thanks')]);

    const mixed = [user('search and weather'), assistant(call('p1', 'web_search', { providerExecuted: true }), call('c1'))];
    const { repair: r } = await repair(mixed);
    expect(r.orphans.map((orphan) => orphan.toolCallId)).toEqual(['c1']);
    expect(r.messages[2]).toEqual({ role: 'tool', content: [interrupted('c1')] });
  });

  describe('tool approvals', () => {
    const request = (approvalId: string, toolCallId: string) => ({ type: 'tool-approval-request' as const, approvalId, toolCallId });
    const response = (approvalId: string, approved: boolean) => ({
      type: 'tool-approval-response' as const,
      approvalId,
      approved,
      reason: approved ? undefined : 'not now',
    });

    test('a request still waiting for its response is an orphan', async () => {
      const history = [user('weather'), assistant(call('c1'), request('a1', 'c1'))];
      const { repair: r, prompt } = await repair(history);
      expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 1]]);
      expect(prompt.at(-1)).toEqual({ role: 'tool', content: [expect.objectContaining(interrupted('c1'))] });
    });

    test('a response in the last message answers its call: generateText executes or denies it', async () => {
      const denied = await expectBalanced([user('weather'), assistant(call('c1'), request('a1', 'c1')), toolMessage(response('a1', false))]);
      expect(denied.at(-1)).toEqual({
        role: 'tool',
        content: [expect.objectContaining({ type: 'tool-result', toolCallId: 'c1', output: expect.objectContaining({ type: 'execution-denied' }) })],
      });
      const approved = await expectBalanced([user('weather'), assistant(call('c1'), request('a1', 'c1')), toolMessage(response('a1', true))]);
      expect(approved.at(-1)).toEqual({
        role: 'tool',
        content: [expect.objectContaining({ type: 'tool-result', toolCallId: 'c1', output: { type: 'json', value: { celsius: 21 } } })],
      });
    });

    test('a response that is not in the last message answers nothing: its call is an orphan, answered after the response', async () => {
      const history = [user('weather'), assistant(call('c1'), request('a1', 'c1')), toolMessage(response('a1', true)), user('well?')];
      const { repair: r } = await repair(history);
      expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 1]]);
      expect(r.sourceMessageCount).toBe(3);
      expect(r.messages[2]).toEqual({ role: 'tool', content: [response('a1', true), interrupted('c1')] });
    });

    test('a response in the last message answers only its own call', async () => {
      const history = [user('weather'), assistant(call('c1'), request('a1', 'c1'), call('c2')), toolMessage(response('a1', false))];
      const { repair: r, prompt } = await repair(history);
      expect(r.orphans.map((orphan) => orphan.toolCallId)).toEqual(['c2']);
      expect(r.messages[2]).toEqual({ role: 'tool', content: [response('a1', false), interrupted('c2')] });
      // The repaired last message still carries the response: the SDK denies c1 itself.
      expect(prompt.at(-1)!.content).toEqual(
        expect.arrayContaining([
          expect.objectContaining(interrupted('c2')),
          expect.objectContaining({ toolCallId: 'c1', output: expect.objectContaining({ type: 'execution-denied' }) }),
        ]),
      );
    });

    test('a denied execution recorded as a result answers its call', async () => {
      const denial: ToolResultPart = { type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'execution-denied', reason: 'no' } };
      await expectBalanced([user('weather'), assistant(call('c1'), request('a1', 'c1')), toolMessage(response('a1', false), denial), user('ok then')]);
    });
  });

  test('nothing orphaned: null, and the SDK accepts the history as it is', async () => {
    await expectBalanced([user('hi'), assistant({ type: 'text', text: 'hello' })]);
    await expectBalanced([user('hi'), { role: 'assistant', content: 'hello' }, user('bye')]);
    await expectBalanced([user('two'), assistant(call('c1'), call('c2')), toolMessage(result('c2')), toolMessage(result('c1')), user('thanks')]);
    // The SDK's rule: an assistant message between a call and its result does not close it.
    await expectBalanced([user('a'), assistant(call('c1')), assistant({ type: 'text', text: 'working' }), toolMessage(result('c1'))]);
    expect(balanceToolCalls([])).toBeNull();
  });

  test('a system message ends the window for a result, as a user message does', async () => {
    const history: ModelMessage[] = [user('a'), assistant(call('c1')), { role: 'system', content: 'Be brief.' }, toolMessage(result('c1'))];
    const { repair: r } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 1]]);
    expect(r.messages).toEqual([history[0], history[1], { role: 'tool', content: [interrupted('c1')] }]);
  });

  test('a call made again before its result is answered once, after its latest message', async () => {
    const history = [user('a'), assistant(call('c1')), assistant(call('c1'))];
    const { repair: r } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 2]]);
    expect(r.messages).toEqual([...history, { role: 'tool', content: [interrupted('c1')] }]);
    const twice = await repair([user('a'), assistant(call('c1'), call('c1'))]);
    expect(twice.repair.orphans).toHaveLength(1);
  });

  test('the same id after a user message is a new call: two orphans', async () => {
    const history = [user('a'), assistant(call('c1')), user('b'), assistant(call('c1'))];
    const { repair: r } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([
      ['c1', 1],
      ['c1', 3],
    ]);
  });

  test('a result before its call does not answer it', async () => {
    const history = [user('a'), toolMessage(result('c1')), assistant(call('c1'))];
    const { repair: r } = await repair(history);
    expect(r.orphans.map(({ toolCallId, index }) => [toolCallId, index])).toEqual([['c1', 2]]);
  });

  test("the error text can be the caller's own", async () => {
    const history = [user('a'), assistant(call('c1'))];
    const r = balanceToolCalls(history, { errorText: 'The worker restarted.' })!;
    expect(r.messages[2]).toEqual({ role: 'tool', content: [interrupted('c1', 'weather', 'The worker restarted.')] });
    expect(r.orphans[0].result.output.value).toBe('The worker restarted.');
  });

  test('the input is not mutated, and messages it did not change are the same objects', () => {
    const history = [user('a'), assistant(call('c1'), call('c2')), toolMessage(result('c1')), user('b'), assistant(call('c3'))];
    const before = structuredClone(history);
    const parts = history.map((message) => message.content);
    const r = balanceToolCalls(history)!;
    expect(history).toEqual(before);
    history.forEach((message, index) => expect(message.content).toBe(parts[index]));
    expect(r.messages.map((message) => history.indexOf(message as ModelMessage))).toEqual([0, 1, -1, 3, 4, -1]);
    expect(balanceToolCalls(Object.freeze(history.map((message) => Object.freeze(message))))).toEqual(r);
  });

  test('the repair message holds exactly the synthetic results, in the order of the orphans', async () => {
    const history = [user('a'), assistant(call('c1')), user('b'), assistant(call('c2', 'news'), call('c3')), toolMessage(result('c3'))];
    const r = balanceToolCalls(history)!;
    const evidence = toolCallRepairMessage(r);
    expect(evidence).toEqual({ role: 'tool', content: [interrupted('c1'), interrupted('c2', 'news')] });
    expect(evidence.content[1]).toBe((r.messages[5].content as unknown[])[1]);
  });
});

describe('generateText, the decisive check', () => {
  test('rejects the unbalanced history with the missing-tool-results error, and accepts the repaired one with the error results in its prompt', async () => {
    const history: ModelMessage[] = [
      user('weather in Paris and Rome?'),
      assistant(call('c1'), call('c2')),
      toolMessage(result('c1')),
      user('and Berlin?'),
      assistant(call('c3')),
    ];
    const unbalanced = await send(history);
    expect(MissingToolResultsError.isInstance(unbalanced.error)).toBe(true);
    expect((unbalanced.error as Error).name).toBe('AI_MissingToolResultsError');
    expect((unbalanced.error as MissingToolResultsError).toolCallIds).toEqual(['c2']);

    const r = balanceToolCalls(history)!;
    const model = mockModel();
    const { text } = await generateText({ model, messages: [...r.messages, ...history.slice(r.sourceMessageCount)] });
    expect(text).toBe('ok');
    const prompt = model.doGenerateCalls[0].prompt;
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool']);
    expect(prompt[2].content).toEqual([expect.objectContaining({ type: 'tool-result', toolCallId: 'c1' }), expect.objectContaining(interrupted('c2'))]);
    expect(prompt[5].content).toEqual([expect.objectContaining(interrupted('c3'))]);
  });
});
