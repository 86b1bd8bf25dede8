// `npm start`: the demo app on the embedded SQLite default (./data/agent-store.db),
// with the HTTP API, its Swagger UI, the session viewer, and a development API key.
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { setupStoreDocs } from 'nestjs-agent-store';
import { DEFAULT_DEMO_API_KEY, DEMO_API_KEY, DemoModule } from './demo.module.js';
import { DEMO_TENANT } from './scripted-agent.js';

// The store's routes parse their own bodies, under the store's size and depth limits.
const app = await NestFactory.create(DemoModule, { bodyParser: false });
setupStoreDocs(app, 'docs');
// SIGINT/SIGTERM close the app (the store disconnects its database), then exit 0
// rather than re-raising the signal, which would end the process with 130/143.
app.enableShutdownHooks([], { useProcessExit: true });
await app.listen(process.env.PORT ?? 3000, '127.0.0.1');
const url = `http://localhost:${(app.getHttpServer().address() as AddressInfo).port}`;
const logger = new Logger('Demo');
logger.log(`API on ${url}/agent-store, Swagger UI on ${url}/docs, session viewer on ${url}/agent-store/viewer/; Ctrl+C stops it`);
// Only the built-in development key is printed: a key of your own stays out of logs.
const key = DEMO_API_KEY === DEFAULT_DEMO_API_KEY ? DEMO_API_KEY : '$AGENT_STORE_API_KEY';
logger.log(`development API key (tenant "${DEMO_TENANT}"): ${key}`);
logger.log(`try: curl -H "Authorization: Bearer ${key}" ${url}/agent-store/sessions`);
