// The package's own bindings' declarations (the OpenAI Agents session's item
// log, the Claude Agent SDK's keyed transcripts, LangGraph's checkpointer, whose
// rows are tables of its own): part of the store, so that their kinds and ids
// are kept from everyone else, and their events import, in any process, whether
// or not it loads their subpath. Their modules use these.
import { createHash } from 'node:crypto';
import type { IntegrationBinding } from './binding.types.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An OpenAI Agents SDK item: an object with a string `type` or `role`. */
export const isAgentItem = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && (typeof value.type === 'string' || typeof value.role === 'string');

/** The key of an applied history operation: a digest, so any id fits and its collation cannot make two ids one. */
export const operationKey = (name: string, operationId: string): string => `${name}.operation:${sha256(operationId)}`;

/** The key of a Claude entry's uuid: as it is when it fits plainly, else its digest. */
export const entryKey = (uuid: string): string => (uuid.length <= 64 && /^[\w.:-]+$/.test(uuid) ? uuid : `sha256:${sha256(uuid)}`);

/** An item log's kinds (see the OpenAI Agents ItemLog), named `name`. */
export function itemLogBinding(name: string): IntegrationBinding {
  const holdsItems = (value: unknown) => isObject(value) && Array.isArray(value.items) && value.items.every(isAgentItem);
  return {
    name,
    kinds: {
      [`${name}.item`]: { holds: isAgentItem },
      // A popped item, kept in the transcript.
      [`${name}.dropped`]: { holds: isAgentItem },
      [`${name}.history`]: { holds: holdsItems },
      [`${name}.operation`]: {
        holds: isObject,
        keyOf: (value) =>
          typeof (value as { operationId?: unknown }).operationId === 'string' ? operationKey(name, (value as { operationId: string }).operationId) : null,
      },
      // A cleared operation is no longer found by its id: it holds its record, under no key.
      [`${name}.operation.cleared`]: { holds: isObject },
    },
  };
}

/** Keyed transcripts' kinds and ids (see the Claude Agent SDK's KeyedTranscripts), named `name`. */
export function keyedTranscriptsBinding(name: string): IntegrationBinding {
  const isEntry = (value: unknown) => isObject(value) && typeof value.type === 'string';
  return {
    name,
    sessionIdPrefixes: [`${name}:`],
    kinds: {
      [`${name}.entry`]: {
        jsonText: true,
        holds: isEntry,
        keyOf: (value) => (typeof (value as { uuid?: unknown }).uuid === 'string' ? entryKey((value as { uuid: string }).uuid) : null),
      },
    },
  };
}

export const OPENAI_AGENTS = itemLogBinding('openai-agents');
export const CLAUDE_AGENT_SDK = keyedTranscriptsBinding('claude-agent-sdk');
/** LangGraph's checkpoints are rows of its own tables: it writes no event, and no session. */
export const LANGGRAPH: IntegrationBinding = { name: 'langgraph', kinds: {} };
