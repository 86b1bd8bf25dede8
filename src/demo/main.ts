// `npm start`: a Nest app with the store on its embedded SQLite default (./data/agent-store.db).
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DemoModule } from './demo.module.js';

const app = await NestFactory.create(DemoModule);
// SIGINT/SIGTERM close the app (the store disconnects its database), then exit 0
// rather than re-raising the signal, which would end the process with 130/143.
app.enableShutdownHooks([], { useProcessExit: true });
await app.listen(process.env.PORT ?? 3000, '127.0.0.1');
new Logger('Demo').log(`ready on ${await app.getUrl()}; Ctrl+C stops it`);
