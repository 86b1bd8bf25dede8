// At boot, the scripted agent runs once, so the API has a conversation to show.
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ScriptedAgent } from './scripted-agent.js';

@Injectable()
export class DemoAgentService implements OnApplicationBootstrap {
  /** The session the agent stored at boot, which `npm start` links to. */
  sessionId: string | undefined;

  constructor(@Inject(ScriptedAgent) private readonly agent: ScriptedAgent) {}

  async onApplicationBootstrap(): Promise<void> {
    const threadId = `trip-${new Date().toISOString()}`;
    await this.agent.run(threadId);
    this.sessionId = threadId;
  }
}
