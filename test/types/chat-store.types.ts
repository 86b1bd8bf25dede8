// Compiled by `tsc` (npm test), never run: the AI SDK's UI messages, of ai 6
// and of ai 7 (installed as `ai-7`), go into ChatStore and come back out under
// the SDK's types without a cast, under strict, in the SDK's own recipe.
import type { streamText as streamText6, UIMessage as UIMessage6, UIMessageStreamOnFinishCallback as OnFinish6 } from 'ai';
import type { streamText as streamText7, UIMessage as UIMessage7, UIMessageStreamOnFinishCallback as OnFinish7 } from 'ai-7';
import type { ChatMessage, ChatStore } from '../../src/index.js';

type Tools = { weather: { input: { city: string }; output: { celsius: number } } };
type Data = { progress: { percent: number } };
/** A typed chat: metadata, data parts and tools of its own. */
type TypedMessage6 = UIMessage6<{ model: string }, Data, Tools>;
type TypedMessage7 = UIMessage7<{ model: string }, Data, Tools>;

/** The SDK's messages in: every UIMessage is a ChatMessage. */
export async function saveWhatTheSdkGives(
  chats: ChatStore,
  m6: UIMessage6[],
  t6: TypedMessage6[],
  m7: UIMessage7[],
  t7: TypedMessage7[],
): Promise<ChatMessage[]> {
  await chats.saveChat('c', m6);
  await chats.saveChat('c', t6);
  await chats.saveChat('c', m7);
  await chats.saveChat('c', t7);
  return [...m6, ...t6, ...m7, ...t7];
}

/** The store's messages out, as the SDK's: inferred from the type they are read into, or named. */
export async function loadForTheSdk(chats: ChatStore): Promise<[UIMessage6[], TypedMessage6[], UIMessage7[], TypedMessage7[]]> {
  const m6: UIMessage6[] = await chats.loadChat('c');
  const t6 = await chats.loadChat<TypedMessage6>('c');
  const m7: UIMessage7[] = await chats.loadChat('c');
  const t7 = await chats.loadChat<TypedMessage7>('c');
  return [m6, t6, m7, t7];
}

/** The recipe as the SDK writes it: onFinish hands its messages to saveChat and returns what it returns. */
export function recipe(
  chats: ChatStore,
  r6: ReturnType<typeof streamText6>,
  r7: ReturnType<typeof streamText7>,
  m6: UIMessage6[],
  typed6: TypedMessage6[],
  m7: UIMessage7[],
): Response[] {
  const onFinish6: OnFinish6<TypedMessage6> = ({ messages }) => chats.saveChat('c', messages);
  const onFinish7: OnFinish7<UIMessage7> = ({ messages }) => chats.saveChat('c', messages);
  return [
    r6.toUIMessageStreamResponse({ originalMessages: typed6, onFinish: onFinish6 }),
    r6.toUIMessageStreamResponse({ originalMessages: m6, onFinish: ({ messages }) => chats.saveChat('c', messages) }),
    r7.toUIMessageStreamResponse({ originalMessages: m7, onFinish: onFinish7 }),
    r7.toUIMessageStreamResponse({ originalMessages: m7, onFinish: ({ messages }) => chats.saveChat('c', messages) }),
  ];
}
