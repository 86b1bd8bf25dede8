// Balancing orphaned tool calls: the pure half of MessageStore.repairToolCalls.
//
// "Orphaned" is exactly what makes the AI SDK (ai 6 and ai 7) reject a prompt
// with AI_MissingToolResultsError, so a balanced history is one generateText
// accepts. Its rule, in convertToLanguageModelPrompt:
// - a `tool-call` part of an assistant message opens its toolCallId, unless the
//   call is `providerExecuted` (its result lives in the assistant message);
// - a `tool-result` part of a tool message closes its toolCallId; a
//   `tool-approval-request` or `tool-approval-response` part closes nothing;
// - a user or system message, or the end of the prompt, with a call still open
//   is the error. An assistant message in between is not.
// And one step before it, in generateText: when the last message is a tool
// message, its `tool-approval-response` parts are turned into results (the
// approved call is executed, the denied one answered `execution-denied`), so a
// call they answer is not orphaned there.

/** The result that answers an orphaned call: an error the model reads as a failed tool. */
export interface InterruptedToolResult {
  /** Always `'tool-result'`. */
  type: 'tool-result';
  /** The id of the orphaned call it answers. */
  toolCallId: string;
  /** The name of the tool that call named. */
  toolName: string;
  /** An error text: `errorText`, or by default 'The tool call was interrupted before it returned a result.' */
  output: {
    /** Always `'error-text'`. */
    type: 'error-text';
    /** The text. */
    value: string;
  };
}

/** A tool message holding only synthetic results. */
export interface InterruptedToolMessage {
  /** Always `'tool'`. */
  role: 'tool';
  /** The synthetic results. */
  content: InterruptedToolResult[];
}

/** An orphaned call, and the result that now answers it. */
export interface ToolCallOrphan {
  /** The orphaned call's id. */
  toolCallId: string;
  /** The name of the tool it called. */
  toolName: string;
  /** The index, in the history given, of the assistant message that made the call. */
  index: number;
  /** The synthetic result that answers it. */
  result: InterruptedToolResult;
}

/** What balanceToolCalls found and made: the balanced prefix of the history, and the orphans it answered. */
export interface ToolCallRepair<M> {
  /**
   * The balanced prefix: the history's first `sourceMessageCount` messages
   * with each orphan's result right after its assistant message, added to a
   * copy of the tool message that directly follows it, or in a new tool message.
   * Messages it did not change are the given objects.
   */
  messages: (M | InterruptedToolMessage)[];
  /** In history order, and in each assistant message in the order of its calls. */
  orphans: ToolCallOrphan[];
  /**
   * How many messages of the history `messages` replaces: the shortest prefix
   * holding every change, so `[...messages, ...history.slice(sourceMessageCount)]`
   * is the whole balanced history.
   */
  sourceMessageCount: number;
}

/** How orphaned tool calls are answered. */
export interface ToolCallRepairOptions {
  /** What the synthetic results say. Default: 'The tool call was interrupted before it returned a result.' */
  errorText?: string;
}

const INTERRUPTED = 'The tool call was interrupted before it returned a result.';

type Part = { type?: unknown; toolCallId?: unknown; toolName?: unknown; providerExecuted?: unknown; approvalId?: unknown };
type ToolCall = { toolCallId: string; toolName: string; providerExecuted?: unknown };

const partsOf = (message: { content: unknown }): Part[] =>
  Array.isArray(message.content) ? message.content.filter((part): part is Part => typeof part === 'object' && part !== null) : [];

const isToolCall = (part: Part): part is Part & ToolCall =>
  part.type === 'tool-call' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string';

const isToolResult = (part: Part): part is Part & { toolCallId: string } => part.type === 'tool-result' && typeof part.toolCallId === 'string';

/**
 * The calls generateText answers itself before it checks the prompt: those
 * that the approval responses of the last message, when it is a tool message,
 * approve or deny. A response whose request is unknown answers nothing (the
 * SDK throws its own error for it).
 */
function callsAnsweredByApprovals(history: readonly { role: string; content: unknown }[]): Set<string> {
  const answered = new Set<string>();
  const last = history.at(-1);
  if (last?.role !== 'tool') return answered;
  const requests = new Map<unknown, unknown>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const part of partsOf(message)) if (part.type === 'tool-approval-request') requests.set(part.approvalId, part.toolCallId);
  }
  for (const part of partsOf(last)) {
    const toolCallId = part.type === 'tool-approval-response' ? requests.get(part.approvalId) : undefined;
    if (typeof toolCallId === 'string') answered.add(toolCallId);
  }
  return answered;
}

/** For each assistant message with orphans, the ids of its orphaned calls. */
function findOrphans(history: readonly { role: string; content: unknown }[]): Map<number, Set<string>> {
  const orphaned = new Map<number, Set<string>>();
  // toolCallId -> the assistant message that opened it last (the SDK keeps a
  // set: a repeated call is one call, answered after its latest message).
  const open = new Map<string, number>();
  const close = () => {
    for (const [toolCallId, index] of open) {
      const ids = orphaned.get(index) ?? new Set<string>();
      orphaned.set(index, ids.add(toolCallId));
    }
    open.clear();
  };
  history.forEach((message, index) => {
    switch (message.role) {
      case 'assistant':
        for (const part of partsOf(message)) if (isToolCall(part) && !part.providerExecuted) open.set(part.toolCallId, index);
        break;
      case 'tool':
        for (const part of partsOf(message)) if (isToolResult(part)) open.delete(part.toolCallId);
        break;
      case 'user':
      case 'system':
        close();
        break;
    }
  });
  for (const toolCallId of callsAnsweredByApprovals(history)) open.delete(toolCallId);
  close();
  return orphaned;
}

/**
 * Answers every orphaned tool call of `history` with an error result, as the
 * AI SDK's rule defines orphaned (see the top of this file). Null when nothing
 * is orphaned. Never changes `history` or its messages.
 */
export function balanceToolCalls<
  M extends {
    /** The message's role: `'assistant'` messages make calls, `'tool'` messages answer them, `'user'` and `'system'` ones close them. */
    role: string;
    /** The message's content: its parts, when it is an array. */
    content: unknown;
  },
>(history: readonly M[], options: ToolCallRepairOptions = {}): ToolCallRepair<M> | null {
  const orphaned = findOrphans(history);
  if (orphaned.size === 0) return null;
  const value = options.errorText ?? INTERRUPTED;
  const orphans: ToolCallOrphan[] = [];
  const messages: (M | InterruptedToolMessage)[] = [];
  let sourceMessageCount = 0;
  for (const index of [...orphaned.keys()].sort((a, b) => a - b)) {
    const ids = orphaned.get(index)!;
    const results: InterruptedToolResult[] = [];
    for (const part of partsOf(history[index])) {
      if (!isToolCall(part) || !ids.delete(part.toolCallId)) continue;
      const result: InterruptedToolResult = {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: { type: 'error-text', value },
      };
      results.push(result);
      orphans.push({ toolCallId: part.toolCallId, toolName: part.toolName, index, result });
    }
    messages.push(...history.slice(sourceMessageCount, index + 1));
    const next = history[index + 1];
    if (next?.role === 'tool' && Array.isArray(next.content)) {
      messages.push({ ...next, content: [...next.content, ...results] });
      sourceMessageCount = index + 2;
    } else {
      messages.push({ role: 'tool', content: results });
      sourceMessageCount = index + 1;
    }
  }
  return { messages, orphans, sourceMessageCount };
}

/**
 * The evidence a repair keeps (appendRepair's `repairMessage`): one tool
 * message holding exactly the synthetic results, in the order of `orphans`.
 */
export function toolCallRepairMessage(repair: Pick<ToolCallRepair<unknown>, 'orphans'>): InterruptedToolMessage {
  return { role: 'tool', content: repair.orphans.map((orphan) => orphan.result) };
}
