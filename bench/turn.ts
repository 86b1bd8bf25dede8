// An agent turn, as an agent service stores it: the history loaded, the user's
// message, two tool steps (the model's call and the tool's result, stored
// together when the step ends), the final answer, and the session's header
// updated (its title and what the turn used). Every target stores the same
// turn its own way (see Target.turn); the messages are the AI SDK's model
// messages, which the store keeps as given.

export interface TurnText {
  role: 'user' | 'assistant';
  content: string;
}

export interface TurnToolCall {
  role: 'assistant';
  content: [{ type: 'tool-call'; toolCallId: string; toolName: string; input: Record<string, unknown> }];
}

export interface TurnToolResult {
  role: 'tool';
  content: [{ type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'json'; value: Record<string, unknown> } }];
}

export type TurnMessage = TurnText | TurnToolCall | TurnToolResult;

export interface AgentTurn {
  user: TurnText;
  /** Each step's call and its result, appended together. */
  steps: [TurnToolCall, TurnToolResult][];
  answer: TurnText;
  /** The session's header after the turn. */
  header: { title: string; metadata: { turns: number; usage: { inputTokens: number; outputTokens: number } } };
}

/** Messages a turn stores: the user's, two per step, the answer. */
export const TURN_MESSAGES = 6;

/** Turns a conversation has had before the timed one: its history, and its thread created. */
export const TURNS_BEFORE = 2;

const TOOLS = ['search_orders', 'refund_status'];

/** The `n`-th turn (1-based) of a conversation: about 1.2 KB of messages, as a support agent's turn with two lookups. */
export function agentTurn(n: number): AgentTurn {
  const steps = TOOLS.map((toolName, i): [TurnToolCall, TurnToolResult] => {
    const toolCallId = `call_${n}_${i + 1}`;
    return [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName, input: { customerId: 'c-1042', turn: n, query: 'order 88231 refund' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName,
            output: { type: 'json', value: { orderId: '88231', status: i === 0 ? 'delivered' : 'refund approved', amount: 129.9, currency: 'EUR' } },
          },
        ],
      },
    ];
  });
  return {
    user: { role: 'user', content: `Turn ${n}: where is the refund for order 88231? It was promised last week and I have not seen it on my card yet.` },
    steps,
    answer: {
      role: 'assistant',
      content: `The refund for order 88231 (129.90 EUR) was approved; it reaches your card within five working days of the approval. (turn ${n})`,
    },
    header: { title: 'Refund for order 88231', metadata: { turns: n, usage: { inputTokens: 1200 * n, outputTokens: 180 * n } } },
  };
}

/** A turn's messages in the order they are stored. */
export const turnMessages = (turn: AgentTurn): TurnMessage[] => [turn.user, ...turn.steps.flat(), turn.answer];
