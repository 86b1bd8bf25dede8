// The demo app: the store on its embedded SQLite default, and a scripted agent.
import { Module } from '@nestjs/common';
import { StoreModule } from '../index.js';
import { DemoAgentService } from './demo-agent.service.js';
import { ScriptedAgent } from './scripted-agent.js';

@Module({ imports: [StoreModule.forRoot()], providers: [DemoAgentService, ScriptedAgent] })
export class DemoModule {}
