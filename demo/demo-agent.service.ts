// At boot, the scripted agent runs once, so the API has a conversation to show.
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ScriptedAgent } from './scripted-agent.js';

@Injectable()
export class DemoAgentService implements OnApplicationBootstrap {
  private readonly logger = new Logger(DemoAgentService.name);
  constructor(@Inject(ScriptedAgent) private readonly agent: ScriptedAgent) {}

  async onApplicationBootstrap(): Promise<void> {
    const threadId = `trip-${new Date().toISOString()}`;
    const { history, transcript } = await this.agent.run(threadId);
    this.logger.log(`the scripted agent stored session "${threadId}": effective history ${history.length} messages, transcript ${transcript.length}`);
  }
}
