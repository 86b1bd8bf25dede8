/**
 * The Claude Agent SDK's SessionStore on the store (docs/frameworks/claude-agent-sdk.md). It needs nothing of the SDK at
 * run time: its types are the SDK's, written out structurally.
 * @module nestjs-agent-store/claude-agent-sdk
 */
export { ClaudeSessionStore, CLAUDE_AGENT_SDK_BINDING, type ClaudeSessionEntry, type ClaudeSessionKey } from './claude-session-store.js';
