// nestjs-agent-store/claude-agent-sdk: the Claude Agent SDK's SessionStore on the store.
// It needs nothing of the SDK at run time: its types are the SDK's, written out structurally.
export { ClaudeSessionStore, CLAUDE_AGENT_SDK_BINDING, type ClaudeSessionEntry, type ClaudeSessionKey } from './claude-session-store.js';
