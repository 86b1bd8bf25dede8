// `npm start`: the demo app on the embedded SQLite default (./data/agent-store.db),
// with the HTTP API, its Swagger UI, the session viewer, and a development API key.
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { setupStoreDocs } from 'nestjs-agent-store/http';
import { DemoAgentService } from './demo-agent.service.js';
import { DEFAULT_DEMO_API_KEY, DEMO_API_KEY, DemoModule } from './demo.module.js';
import { DEMO_TENANT } from './scripted-agent.js';

// The store's routes parse their own bodies, under the store's size and depth limits.
// Warnings and errors only: the start-up log (a line per route) would bury the lines below.
const app = await NestFactory.create(DemoModule, { bodyParser: false, logger: ['warn', 'error'] });
setupStoreDocs(app, 'docs');
// SIGINT/SIGTERM close the app (the store disconnects its database), then exit 0
// rather than re-raising the signal, which would end the process with 130/143.
app.enableShutdownHooks([], { useProcessExit: true });
await app.listen(process.env.PORT ?? 3000, '127.0.0.1');
const url = `http://localhost:${(app.getHttpServer().address() as AddressInfo).port}`;
const viewer = `${url}/agent-store/viewer/`;
// Only the built-in development key is printed: a key of your own stays out of logs.
const key = DEMO_API_KEY === DEFAULT_DEMO_API_KEY ? DEMO_API_KEY : '$AGENT_STORE_API_KEY';
const session = app.get(DemoAgentService).sessionId;
console.log(`
nestjs-agent-store demo: the store on embedded SQLite (./data/agent-store.db), its HTTP API, and a scripted agent

  Session viewer   ${viewer}
  Agent's session  ${viewer}#/session/${encodeURIComponent(session ?? '')}
  HTTP API         ${url}/agent-store   (Swagger UI: ${url}/docs)
  API key          ${key}   (tenant "${DEMO_TENANT}"; paste it into the viewer)

  Try: curl -H "Authorization: Bearer ${key}" ${url}/agent-store/sessions

Ctrl+C stops it.`);
