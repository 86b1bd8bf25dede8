/**
 * LangGraph JS's checkpoint saver on the store (docs/frameworks/langgraph.md). `@langchain/langgraph-checkpoint` (which
 * `@langchain/langgraph` brings) is an optional peer.
 * @module nestjs-agent-store/langgraph
 */
export { LangGraphCheckpointer } from './langgraph-checkpointer.js';
