// The demo's POST /chat, the AI SDK's recipe over ChatStore, through HTTP on a real SQLite file.
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { validateUIMessages, type UIMessage } from 'ai';
import request from 'supertest';
import { ChatController } from '../../demo/chat.controller.js';
import { CHAT_MESSAGE_EVENT, isEvent, SessionStore, StoreModule } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

let app: INestApplication;
beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true })],
    controllers: [ChatController],
  }).compile();
  app = await moduleRef.createNestApplication({ logger: false }).init();
});
afterAll(() => app?.close());

const ask = (id: string, messageId: string, text: string) =>
  request(app.getHttpServer())
    .post('/chat')
    .send({ id, message: { id: messageId, role: 'user', parts: [{ type: 'text', text }] } });

/** The UI message stream's chunks, from its server-sent events. */
const chunksOf = (body: string) =>
  body
    .split('\n\n')
    .filter((event) => event.startsWith('data: {'))
    .map((event) => JSON.parse(event.slice('data: '.length)) as { type: string; messageId?: string; delta?: string });

test('each turn streams the scripted reply and saves the chat; only the new messages are recorded', async () => {
  const first = await ask('trip', 'u1', 'Plan a weekend in Lisbon').expect(200);
  expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
  const chunks = chunksOf(first.text);
  const replyId = chunks.find((chunk) => chunk.type === 'start')?.messageId;
  expect(replyId).toMatch(/^msg-/);
  const reply = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
  expect(reply).toBe('You said: "Plan a weekend in Lisbon". This reply is scripted.');
  expect(first.text).toContain('data: [DONE]');

  const saved = (await request(app.getHttpServer()).get('/chat/trip').expect(200)).body as UIMessage[];
  expect(saved).toEqual([
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Plan a weekend in Lisbon' }] },
    { id: replyId, role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text: reply, state: 'done' }] },
  ]);
  expect(await validateUIMessages({ messages: saved })).toEqual(saved);

  await ask('trip', 'u2', 'And the food?').expect(200);
  const chat = (await request(app.getHttpServer()).get('/chat/trip').expect(200)).body as UIMessage[];
  expect(chat.map((message) => message.id)).toEqual(['u1', replyId, 'u2', expect.stringMatching(/^msg-/)]);
  const events = (await app.get<SessionStore>(SessionStore).load('trip')).filter(isEvent);
  expect(events.map((event) => [event.type, (event.data as { id: string }).id])).toEqual(chat.map((message) => [CHAT_MESSAGE_EVENT, message.id]));
});

test('a bad chat id or message is a 400, and nothing is saved', async () => {
  await ask('', 'u1', 'hi').expect(400);
  await request(app.getHttpServer())
    .post('/chat')
    .send({ id: 'bad', message: { id: 'u1', role: 'robot', parts: [] } })
    .expect(400);
  expect((await request(app.getHttpServer()).get('/chat/bad').expect(200)).body).toEqual([]);
  expect(await app.get<SessionStore>(SessionStore).get('bad')).toBeNull();
});
