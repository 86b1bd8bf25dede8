// Compiled by `tsc` (npm test), never run: the OpenAI Agents run-context example of docs/frameworks/openai-agents.md, under
// strict. run() takes the session forRunContext gives for the agent's context type, and the Nest
// wiring is the page's.
import { Injectable, Module } from '@nestjs/common';
import { Agent, run } from '@openai/agents-core';
import { StoreModule } from '../../src/index.js';
import { OpenAIAgentsSessions } from '../../src/integrations/openai-agents/index.js';

type RequestContext = { tenantId: string; userId: string };

@Injectable()
export class TenantAgent {
  private readonly agent = new Agent<RequestContext>({ name: 'Support', instructions: '…' });
  constructor(private readonly sessions: OpenAIAgentsSessions) {}

  async ask(context: RequestContext, sessionId: string, question: string): Promise<string> {
    const session = this.sessions.forRunContext<RequestContext>(sessionId, { tenantOf: (ctx) => ctx.tenantId });
    const result = await run(this.agent, question, { session, context });
    return String(result.finalOutput);
  }
}

@Module({ imports: [StoreModule.forRoot({ url: process.env.DATABASE_URL })], providers: [OpenAIAgentsSessions, TenantAgent] })
export class AgentModule {}
