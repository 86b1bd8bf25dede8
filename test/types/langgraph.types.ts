// Compiled by `tsc` (npm test), never run: the LangGraph example of docs/frameworks/langgraph.md, under strict. The
// checkpointer is what StateGraph's compile() takes, and the Nest wiring is the page's.
import { Injectable, Module } from '@nestjs/common';
import { Command, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { StoreModule } from '../../src/index.js';
import { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';

const agent = async (state: typeof MessagesAnnotation.State) => ({ messages: state.messages.slice(-1) });
const tools = async () => ({ messages: [] });

const researchGraph = (checkpointer: LangGraphCheckpointer) =>
  new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', tools)
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer });

@Injectable()
export class ResearchAgent {
  private readonly graph: ReturnType<typeof researchGraph>;
  constructor(checkpointer: LangGraphCheckpointer) {
    this.graph = researchGraph(checkpointer);
  }

  ask(threadId: string, question: string) {
    return this.graph.invoke({ messages: [{ role: 'user', content: question }] }, { configurable: { thread_id: threadId } });
  }

  approve(threadId: string, answer: string) {
    return this.graph.invoke(new Command({ resume: answer }), { configurable: { thread_id: threadId } });
  }

  forTenant(tenantId: string, checkpointer: LangGraphCheckpointer) {
    return researchGraph(checkpointer.forTenant(tenantId));
  }
}

@Module({ imports: [StoreModule.forRoot({ url: process.env.DATABASE_URL, migrate: true })], providers: [LangGraphCheckpointer, ResearchAgent] })
export class AgentModule {}
