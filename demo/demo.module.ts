// The demo app: the store on its embedded SQLite default with the HTTP API
// mounted, and a scripted agent that works in the demo tenant.
import { Module } from '@nestjs/common';
import { StoreModule } from 'nestjs-agent-store';
import { DemoAgentService } from './demo-agent.service.js';
import { DEMO_TENANT, ScriptedAgent } from './scripted-agent.js';

/** For local use only: the demo listens on 127.0.0.1. Set AGENT_STORE_API_KEY to use another. */
export const DEFAULT_DEMO_API_KEY = 'demo-key-for-local-use-only';
export const DEMO_API_KEY = process.env.AGENT_STORE_API_KEY || DEFAULT_DEMO_API_KEY;

@Module({
  imports: [StoreModule.forRoot({ http: { apiKeys: { [DEMO_API_KEY]: DEMO_TENANT } } })],
  providers: [DemoAgentService, ScriptedAgent],
})
export class DemoModule {}
