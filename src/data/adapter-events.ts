// The framework adapters' event kinds in sessions' logs: each adapter writes its
// own (`<kind>.<what>`), never SessionStore.append, and a JSONL import checks
// that each holds what its adapter would have written.

export const ADAPTER_KINDS = { openaiAgents: 'openai-agents', claudeAgentSdk: 'claude-agent-sdk' } as const;

/** The adapter kind whose event `type` is, if it is one of theirs. */
export const adapterKindOf = (type: string): string | undefined => Object.values(ADAPTER_KINDS).find((kind) => type.startsWith(`${kind}.`));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** An OpenAI Agents SDK item: an object with a `type` or a `role`. */
const isAgentItem = (value: unknown) => isObject(value) && (typeof value.type === 'string' || typeof value.role === 'string');

/** What each adapter event holds (see ItemLog and KeyedTranscripts). */
const HOLDS: Record<string, (data: unknown) => boolean> = {
  'openai-agents.item': isAgentItem,
  'openai-agents.dropped': isAgentItem,
  'openai-agents.history': (data) => isObject(data) && Array.isArray(data.items) && data.items.every(isAgentItem),
  'openai-agents.operation': isObject,
  'openai-agents.operation.cleared': isObject,
  'claude-agent-sdk.entry': (data) => isObject(data) && typeof data.type === 'string',
};

/** Whether `data` is what the adapter event `type` holds; false for a type no adapter writes. */
export const isAdapterEvent = (type: string, data: unknown): boolean => HOLDS[type]?.(data) ?? false;
