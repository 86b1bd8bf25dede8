// The demo app: the store on its embedded SQLite default, and one scripted agent turn.
import { Module } from '@nestjs/common';
import { StoreModule } from '../index.js';
import { DemoAgentService } from './demo-agent.service.js';

@Module({ imports: [StoreModule.forRoot()], providers: [DemoAgentService] })
export class DemoModule {}
