// The framework adapters' event kinds in sessions' logs: each adapter writes its
// own (`<kind>.<what>`), never SessionStore.append, and a JSONL import checks
// that each holds what its adapter would have written, and gives it back the
// message id its adapter keys it by (an operation id, an entry's uuid).
import { createHash } from 'node:crypto';

export const ADAPTER_KINDS = { openaiAgents: 'openai-agents', claudeAgentSdk: 'claude-agent-sdk' } as const;

/** The adapter kind whose event `type` is, if it is one of theirs. */
export const adapterKindOf = (type: string): string | undefined => Object.values(ADAPTER_KINDS).find((kind) => type.startsWith(`${kind}.`));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** An OpenAI Agents SDK item: an object with a `type` or a `role`. */
export const isAgentItem = (value: unknown) => isObject(value) && (typeof value.type === 'string' || typeof value.role === 'string');

/** What each adapter event holds (see ItemLog and KeyedTranscripts). */
const HOLDS: Record<string, (data: unknown) => boolean> = {
  'openai-agents.item': isAgentItem,
  'openai-agents.dropped': isAgentItem,
  'openai-agents.history': (data) => isObject(data) && Array.isArray(data.items) && data.items.every(isAgentItem),
  'openai-agents.operation': isObject,
  'openai-agents.operation.cleared': isObject,
  'claude-agent-sdk.entry': (data) => isObject(data) && typeof data.type === 'string',
};

/** Whether the adapter keeps the event's data as its JSON text alone (see checkJsonText): a Claude entry. */
export const isJsonTextEvent = (type: unknown): boolean => type === `${ADAPTER_KINDS.claudeAgentSdk}.entry`;

/** Whether `data` is what the adapter event `type` holds; false for a type no adapter writes. */
export const isAdapterEvent = (type: string, data: unknown): boolean => HOLDS[type]?.(data) ?? false;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The message id of an applied history operation: a digest, so any id fits the column and its collation cannot make two ids one. */
export const operationMessageId = (kind: string, operationId: string): string => `${kind}.operation:${sha256(operationId)}`;

/** The message id of an entry's uuid: as it is when it fits plainly, else its digest. */
export const entryMessageId = (uuid: string): string => (uuid.length <= 64 && /^[\w.:-]+$/.test(uuid) ? uuid : `sha256:${sha256(uuid)}`);

/** The message id an adapter keys the event by, where it keys it (a JSONL import restores it). */
export function adapterMessageIdOf(type: string, data: unknown): string | null {
  const record = isObject(data) ? data : {};
  if (type === `${ADAPTER_KINDS.openaiAgents}.operation` && typeof record.operationId === 'string')
    return operationMessageId(ADAPTER_KINDS.openaiAgents, record.operationId);
  if (type === `${ADAPTER_KINDS.claudeAgentSdk}.entry` && typeof record.uuid === 'string') return entryMessageId(record.uuid);
  return null;
}
