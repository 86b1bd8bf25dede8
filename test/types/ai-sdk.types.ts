// Compiled by `tsc` (npm test), never run: the store's messages and the AI SDK's
// model messages, of ai 6 and of ai 7 (installed as `ai-7`), are assignable to
// each other without a cast, under strict.
import type { generateText as generateText6, ModelMessage as ModelMessage6 } from 'ai';
import type { generateText as generateText7, ModelMessage as ModelMessage7 } from 'ai-7';
import type { HistoryMessage, MessageInput, MessageStore, StoredMessage } from '../../src/index.js';

type ResponseMessages6 = Awaited<ReturnType<typeof generateText6>>['response']['messages'];
type ResponseMessages7 = Awaited<ReturnType<typeof generateText7>>['response']['messages'];

/** The SDK's messages in: response.messages and a prompt, as they are typed. */
export async function storeWhatTheSdkGives(
  store: MessageStore,
  r6: ResponseMessages6,
  p6: ModelMessage6[],
  r7: ResponseMessages7,
  p7: ModelMessage7[],
): Promise<void> {
  await store.appendMany('t', r6);
  await store.appendMany('t', p6);
  await store.append('t', p6[0]);
  await store.appendMany('t', r7);
  await store.appendMany('t', p7);
  await store.append('t', p7[0]);
  await store.replaceHistory('t', [...p6, ...p7]);
  await store.appendCompaction('t', p7, 1, 0);
  await store.appendRepair('t', r6[0], p6, 1);
}

/** The store's messages out: what the SDK's generateText takes as `messages`. */
export async function feedTheSdk(store: MessageStore): Promise<[ModelMessage6[], ModelMessage7[]]> {
  const history6: ModelMessage6[] = await store.getHistory('t');
  const transcript6: ModelMessage6[] = await store.getTranscript('t');
  const page6: ModelMessage6[] = (await store.getHistoryPage('t')).messages;
  const history7: ModelMessage7[] = await store.getHistory('t');
  const transcript7: ModelMessage7[] = (await store.getTranscriptPage('t')).messages;
  return [
    [...history6, ...transcript6, ...page6],
    [...history7, ...transcript7],
  ];
}

/** Read output is valid input. */
export async function readOutputIsInput(store: MessageStore): Promise<StoredMessage[]> {
  const history: HistoryMessage[] = await store.getHistory('t');
  const again: MessageInput[] = [...history, ...(await store.getTranscript('t'))];
  await store.appendRepair('t', history[0], again, 1);
  return store.replaceHistory('t', again);
}
