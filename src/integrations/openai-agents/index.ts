// nestjs-agent-store/openai-agents: the OpenAI Agents SDK's Session on the store.
// `@openai/agents-core` (which `@openai/agents` brings) is an optional peer: only its types are used.
export { OpenAIAgentsSessions, OPENAI_AGENTS_BINDING, OPENAI_AGENTS_KIND } from './openai-agents-sessions.js';
export { StoreAgentSession } from './store-session.js';
export { RunContextAgentSession, type RunContextSessionOptions } from './run-context-session.js';
