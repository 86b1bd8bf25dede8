/**
 * The OpenAI Agents SDK's Session on the store (docs/frameworks/openai-agents.md). `@openai/agents-core` (which
 * `@openai/agents` brings) is an optional peer: only its types are used.
 * @module nestjs-agent-store/openai-agents
 */
export { OpenAIAgentsSessions, OPENAI_AGENTS_BINDING, OPENAI_AGENTS_KIND } from './openai-agents-sessions.js';
export { StoreAgentSession } from './store-session.js';
export { RunContextAgentSession, type RunContextSessionOptions } from './run-context-session.js';
