// A scripted agent turn stored at boot, the way an agent loop would store a real one.
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MessageStore } from '../index.js';

const THREAD = 'demo';

@Injectable()
export class DemoAgentService implements OnApplicationBootstrap {
  private readonly logger = new Logger(DemoAgentService.name);
  constructor(@Inject(MessageStore) private readonly messages: MessageStore) {}

  async onApplicationBootstrap(): Promise<void> {
    const toolCallId = `call-${Date.now()}`;
    await this.messages.append(THREAD, { role: 'user', content: 'What is the weather in Paris?' });
    await this.messages.append(THREAD, {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId, toolName: 'getWeather', input: { city: 'Paris' } }],
    });
    await this.messages.append(THREAD, {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId, toolName: 'getWeather', output: { celsius: 18, sky: 'cloudy' } }],
    });
    await this.messages.append(THREAD, { role: 'assistant', content: 'It is 18 °C and cloudy in Paris.' });

    // The thread persists across runs, so both numbers grow by 4 on every start.
    const history = await this.messages.count(THREAD);
    const transcript = (await this.messages.getTranscript(THREAD)).length;
    this.logger.log(`thread "${THREAD}": effective history ${history} messages, transcript ${transcript} messages`);
  }
}
