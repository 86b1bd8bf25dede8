// nestjs-agent-store/langgraph: LangGraph JS's checkpoint saver on the store.
// `@langchain/langgraph-checkpoint` (which `@langchain/langgraph` brings) is an optional peer.
export { LangGraphCheckpointer } from './langgraph-checkpointer.js';
