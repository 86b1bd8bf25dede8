// The store under the AI SDK's own functions, on every backend: generateText
// and streamText runs with tool steps (the SDK's mock model), stored with
// appendMany, reloaded and continued. A history from the store must give the
// model exactly the prompt the original, never stored messages give it, images
// and files included. Runs against whichever `ai` jest maps (6, or 7 where it
// maps it); written against ai 6's types, with no cast where the store's types
// must fit the SDK's.
import { jest } from '@jest/globals';
import {
  convertToModelMessages,
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  tool,
  type AssistantModelMessage,
  type ModelMessage,
  type ToolModelMessage,
  type UIMessage,
} from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { eachBackend, storeOn } from '../support/openers.js';

type MockOptions = NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>;
type GenerateResult = Extract<NonNullable<MockOptions['doGenerate']>, unknown[]>[number];
type StreamResult = Extract<NonNullable<MockOptions['doStream']>, unknown[]>[number];
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
type Prompt = MockLanguageModelV3['doGenerateCalls'][number]['prompt'];

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 2, text: 2, reasoning: undefined } };

/** A step that thinks (with a provider's signature, which the SDK hands back as providerOptions) and calls the weather tool. */
const toolCallStep = (toolCallId: string, city: string): GenerateResult => ({
  content: [
    { type: 'reasoning', text: `Looking up ${city}.`, providerMetadata: { mock: { signature: `sig-${toolCallId}` } } },
    { type: 'tool-call', toolCallId, toolName: 'weather', input: JSON.stringify({ city }) },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const textStep = (text: string): GenerateResult => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });

const streamOf = (...parts: StreamPart[]): StreamResult => ({ stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...parts]) });
const toolCallStream = (toolCallId: string, city: string) =>
  streamOf(
    { type: 'reasoning-start', id: 'r1', providerMetadata: { mock: { signature: `sig-${toolCallId}` } } },
    { type: 'reasoning-delta', id: 'r1', delta: `Looking up ${city}.` },
    { type: 'reasoning-end', id: 'r1' },
    { type: 'tool-call', toolCallId, toolName: 'weather', input: JSON.stringify({ city }) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  );
const textStream = (text: string) =>
  streamOf(
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: text.slice(0, 3) },
    { type: 'text-delta', id: 't1', delta: text.slice(3) },
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  );

// The model takes these URLs itself: the SDK passes them on instead of downloading them.
const supportedUrls = { 'image/*': [/^https:\/\/example\.com\//], 'application/pdf': [/^https:\/\/example\.com\//] };
const generating = (...steps: GenerateResult[]) => new MockLanguageModelV3({ supportedUrls, doGenerate: steps });
const streaming = (...steps: StreamResult[]) => new MockLanguageModelV3({ supportedUrls, doStream: steps });

const inputSchema = jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false });
const weather = tool({
  description: 'The weather in a city',
  inputSchema,
  execute: async ({ city }) => ({ city, celsius: city.length, sky: ['clear', null] }),
});
const tools = { weather };
/** The weather tool without `execute`: the run stops at its call, as a process that crashed before the result would leave it. */
const crashingTools = { weather: tool({ description: 'The weather in a city', inputSchema }) };

// ai 7 refuses system messages in `messages` unless told; ai 6 takes them (and, told, does not warn).
const systemInMessages = { allowSystemInMessages: true };

const CAT = 'https://example.com/cat.png';
const PNG = [137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82];
const PDF = '%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n\u0000';

/** A system message and a user message with an image by URL, an image as bytes and a PDF as a Buffer; fresh objects on each call. */
const prompt = (): ModelMessage[] => [
  { role: 'system', content: 'You answer with the weather.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Where does this cat live, and what is the weather there? 🐈' },
      { type: 'image', image: new URL(CAT) },
      { type: 'image', image: Uint8Array.from(PNG) },
      { type: 'file', data: Buffer.from(PDF, 'latin1'), mediaType: 'application/pdf', filename: 'forecast.pdf' },
    ],
    providerOptions: { mock: { cacheControl: 'ephemeral' } },
  },
];

/**
 * Every step's response messages. ai 7 gives them as `responseMessages` (its
 * `response` is the last step's); ai 6, whose types this file is written
 * against, as `response.messages`.
 */
type ResponseMessage = AssistantModelMessage | ToolModelMessage;
async function responseMessagesOf(result: {
  response: { messages: ResponseMessage[] } | PromiseLike<{ messages: ResponseMessage[] }>;
}): Promise<ResponseMessage[]> {
  const all: unknown = await Reflect.get(result, 'responseMessages');
  return Array.isArray(all) ? all : (await result.response).messages;
}

/**
 * The prompt with each Buffer as a Uint8Array of its bytes: the store gives a
 * Buffer back as a Uint8Array, and the SDK hands the model the bytes as it got them.
 */
function buffersAsBytes(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(buffersAsBytes);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, buffersAsBytes(item)]));
  }
  return value;
}

/** The file parts of the prompt's user messages, as the model received them. */
const userFiles = (received: Prompt) => received.flatMap((message) => (message.role === 'user' ? message.content.filter((part) => part.type === 'file') : []));

/** Checks that the model received the prompt's image by URL, its image bytes and its PDF, as they were given. */
function expectTheFiles(received: Prompt) {
  const [url, image, pdf] = userFiles(received);
  // An image of no given type: ai 6 says 'image/*', ai 7 'image'.
  expect(url.mediaType).toMatch(/^image(\/\*)?$/);
  expect(url.data).toBeInstanceOf(URL);
  expect(String(url.data)).toBe(CAT);
  expect(image.mediaType).toBe('image/png');
  expect(image.data).toBeInstanceOf(Uint8Array);
  expect([...(image.data as Uint8Array)]).toEqual(PNG);
  expect(pdf).toMatchObject({ mediaType: 'application/pdf', filename: 'forecast.pdf' });
  expect(pdf.data).toBeInstanceOf(Uint8Array);
  expect(Buffer.from(pdf.data as Uint8Array).toString('latin1')).toBe(PDF);
}

eachBackend((backend) => {
  const store = storeOn(backend);

  let n = 0;
  const thread = () => `ai-sdk-${++n}`;

  let fetchSpy: ReturnType<typeof jest.spyOn> | undefined;
  let logWarnings: typeof globalThis.AI_SDK_LOG_WARNINGS;
  beforeAll(() => {
    // No network: a download the SDK tried would fail the test.
    fetchSpy = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('no network in these tests'));
    logWarnings = globalThis.AI_SDK_LOG_WARNINGS;
    globalThis.AI_SDK_LOG_WARNINGS = false;
  });
  afterAll(() => {
    fetchSpy?.mockRestore();
    globalThis.AI_SDK_LOG_WARNINGS = logWarnings;
  });
  afterEach(() => expect(fetchSpy).not.toHaveBeenCalled());

  /** The prompt the model receives when generateText continues from `messages`. */
  async function continued(messages: ModelMessage[], text = 'Rain tomorrow.') {
    const model = generating(textStep(text));
    const result = await generateText({ model, messages, tools, ...systemInMessages });
    expect(result.text).toBe(text);
    expect(model.doGenerateCalls).toHaveLength(1);
    return model.doGenerateCalls[0].prompt;
  }

  test('generateText: a run with a tool step, stored and reloaded, continues with the prompt the original messages give', async () => {
    const id = thread();
    const given = prompt();
    const model = generating(toolCallStep('call-1', 'Paris'), textStep('Sunny in Paris.'));
    const run = await generateText({ model, messages: given, tools, stopWhen: stepCountIs(3), ...systemInMessages });
    expect(run.steps).toHaveLength(2);
    expect(run.text).toBe('Sunny in Paris.');
    const response = await responseMessagesOf(run);
    expect(response.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);

    await store.messages.appendMany(id, given);
    await store.messages.appendMany(id, response);
    const question: ModelMessage = { role: 'user', content: 'And tomorrow?' };
    await store.messages.append(id, question);
    const history: ModelMessage[] = await store.messages.getHistory(id);
    expect(history).toHaveLength(6);

    const fromStore = await continued(history);
    const original = await continued([...given, ...response, question]);
    expect(buffersAsBytes(fromStore)).toStrictEqual(buffersAsBytes(original));
    expectTheFiles(fromStore);
    // The step's reasoning signature, the call and the tool's result reach the model again.
    expect(fromStore.slice(2, 5)).toMatchObject([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', providerOptions: { mock: { signature: 'sig-call-1' } } },
          { type: 'tool-call', toolCallId: 'call-1', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call-1', output: { type: 'json', value: { city: 'Paris', celsius: 5, sky: ['clear', null] } } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Sunny in Paris.' }] },
    ]);
    // The run's first step received what the stored prompt gives.
    expect(buffersAsBytes(await continued(history.slice(0, 2)))).toStrictEqual(buffersAsBytes(model.doGenerateCalls[0].prompt));
  });

  test('generateText: the response stored twice under its ids (a retry) is stored once, and the conversation goes on the same', async () => {
    const id = thread();
    const given = prompt();
    const run = await generateText({
      model: generating(toolCallStep('call-2', 'Rome'), textStep('Warm in Rome.')),
      messages: given,
      tools,
      stopWhen: stepCountIs(3),
      ...systemInMessages,
    });
    const response = await responseMessagesOf(run);
    const withIds = [...given, ...response].map((message, i) => ({ ...message, id: `turn-1-${i}` }));
    const first = await store.messages.appendMany(id, withIds);
    const retry = await store.messages.appendMany(id, withIds);
    expect(retry.map((message) => message.seq)).toEqual(first.map((message) => message.seq));
    expect(await store.messages.count(id)).toBe(5);
    const history = await store.messages.getHistory(id);
    expect(buffersAsBytes(await continued(history))).toStrictEqual(buffersAsBytes(await continued([...given, ...response])));
  });

  test('streamText: a streamed run with a tool step, stored and reloaded, continues with the prompt the original messages give', async () => {
    const id = thread();
    const given = prompt();
    const model = streaming(toolCallStream('call-3', 'Oslo'), textStream('Snow in Oslo.'));
    const run = streamText({ model, messages: given, tools, stopWhen: stepCountIs(3), ...systemInMessages });
    await run.consumeStream();
    expect(await run.text).toBe('Snow in Oslo.');
    const response = await responseMessagesOf(run);
    expect(response.map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant']);

    await store.messages.appendMany(id, [...given, ...response]);
    const question: ModelMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'And tomorrow?' },
        { type: 'image', image: Uint8Array.from(PNG), mediaType: 'image/png' },
      ],
    };
    await store.messages.append(id, question);
    const history = await store.messages.getHistory(id);

    const receivedFrom = async (messages: ModelMessage[]) => {
      const next = streaming(textStream('Rain tomorrow.'));
      const result = streamText({ model: next, messages, tools, ...systemInMessages });
      await result.consumeStream();
      expect(await result.text).toBe('Rain tomorrow.');
      expect(next.doStreamCalls).toHaveLength(1);
      return next.doStreamCalls[0].prompt;
    };
    const fromStore = await receivedFrom(history);
    expect(buffersAsBytes(fromStore)).toStrictEqual(buffersAsBytes(await receivedFrom([...given, ...response, question])));
    expectTheFiles(fromStore);
    expect(fromStore[2]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Looking up Oslo.', providerOptions: { mock: { signature: 'sig-call-3' } } },
        { type: 'tool-call', toolCallId: 'call-3' },
      ],
    });
    expect(fromStore[3]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-3', output: { type: 'json', value: { city: 'Oslo', celsius: 4 } } }],
    });
    expect(userFiles(fromStore)).toHaveLength(4);
    // A streamText history goes on with generateText as well.
    expect(buffersAsBytes(await continued(history))).toStrictEqual(buffersAsBytes(await continued([...given, ...response, question])));
  });

  test('a tool call that crashed before its result: the stored history is refused by generateText, and accepted after repairToolCalls', async () => {
    const id = thread();
    const given = prompt();
    const run = await generateText({
      model: generating(toolCallStep('call-4', 'Lima')),
      messages: given,
      tools: crashingTools,
      stopWhen: stepCountIs(3),
      ...systemInMessages,
    });
    const response = await responseMessagesOf(run);
    expect(response.map((message) => message.role)).toEqual(['assistant']);
    await store.messages.appendMany(id, [...given, ...response]);
    await store.messages.append(id, { role: 'user', content: 'Hello? Are you there?' });

    const refused = generating(textStep('never'));
    await expect(generateText({ model: refused, messages: await store.messages.getHistory(id), tools, ...systemInMessages })).rejects.toMatchObject({
      name: 'AI_MissingToolResultsError',
      toolCallIds: ['call-4'],
    });
    expect(refused.doGenerateCalls).toHaveLength(0);

    const record = await store.messages.repairToolCalls(id);
    expect(record).toMatchObject({
      repairMessage: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-4', toolName: 'weather', output: { type: 'error-text' } }] },
    });
    const received = await continued(await store.messages.getHistory(id), 'Sorry, the lookup failed.');
    expect(received.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(received[3]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-4', output: { type: 'error-text', value: expect.any(String) } }],
    });
    expectTheFiles(received);
    expect(await store.messages.repairToolCalls(id)).toBeNull();
  });

  test('convertToModelMessages: UI messages converted, stored and reloaded give the model the prompt the converted ones give', async () => {
    const id = thread();
    const ui: UIMessage[] = [
      {
        id: 'u1',
        role: 'user',
        parts: [
          { type: 'text', text: 'Weather in Paris? Here is the cat.' },
          { type: 'file', mediaType: 'image/png', url: CAT, filename: 'cat.png' },
          { type: 'file', mediaType: 'application/pdf', url: `data:application/pdf;base64,${Buffer.from(PDF, 'latin1').toString('base64')}` },
        ],
      },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'Calling the tool.', providerMetadata: { mock: { signature: 'sig-ui' } } },
          { type: 'tool-weather', toolCallId: 'call-5', state: 'output-available', input: { city: 'Paris' }, output: { city: 'Paris', celsius: 5 } },
          { type: 'step-start' },
          { type: 'text', text: 'It is 5 °C.' },
        ],
      },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks! And tomorrow?' }] },
    ];
    const converted = await convertToModelMessages(ui, { tools });
    expect(converted.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    await store.messages.appendMany(id, converted);
    const history = await store.messages.getHistory(id);
    const fromStore = await continued(history);
    expect(buffersAsBytes(fromStore)).toStrictEqual(buffersAsBytes(await continued(converted)));
    expect(fromStore[2]).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-5', output: { type: 'json', value: { city: 'Paris', celsius: 5 } } }],
    });
    const [cat, pdf] = userFiles(fromStore);
    expect(cat).toMatchObject({ mediaType: 'image/png', filename: 'cat.png' });
    expect(String(cat.data)).toBe(CAT);
    expect(pdf.mediaType).toBe('application/pdf');
  });
});
