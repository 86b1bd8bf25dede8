// The demo app: the store on its embedded SQLite default with the HTTP API
// mounted and its session viewer on, a scripted agent that works in the demo
// tenant, and a chat route of the AI SDK's recipe.
import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { json } from 'express';
import { StoreModule } from 'nestjs-agent-store';
import { ChatController } from './chat.controller.js';
import { DemoAgentService } from './demo-agent.service.js';
import { DEMO_TENANT, ScriptedAgent } from './scripted-agent.js';

/** For local use only: the demo listens on 127.0.0.1. Set AGENT_STORE_API_KEY to use another. */
export const DEFAULT_DEMO_API_KEY = 'demo-key-for-local-use-only';
export const DEMO_API_KEY = process.env.AGENT_STORE_API_KEY || DEFAULT_DEMO_API_KEY;

@Module({
  imports: [StoreModule.forRoot({ http: { apiKeys: { [DEMO_API_KEY]: DEMO_TENANT }, viewer: true } })],
  controllers: [ChatController],
  providers: [DemoAgentService, ScriptedAgent],
})
export class DemoModule implements NestModule {
  // The app leaves bodies to the store's routes (main.ts): the chat route parses its own.
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(json({ limit: '1mb' })).forRoutes(ChatController);
  }
}
