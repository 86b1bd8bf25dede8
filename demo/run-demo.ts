// `npm run demo`: runs the scripted agent once on the embedded SQLite default and
// prints the effective history (what the model sees next) beside the transcript.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { StoreModule, type Message } from 'nestjs-agent-store';
import { ScriptedAgent } from './scripted-agent.js';

@Module({ imports: [StoreModule.forRoot()], providers: [ScriptedAgent] })
class RunOnceModule {}

const app = await NestFactory.createApplicationContext(RunOnceModule, { logger: ['warn', 'error'] });
try {
  const threadId = `trip-${new Date().toISOString()}`;
  const { history, transcript, subsessions, repairs } = await app.get(ScriptedAgent).run(threadId);
  const show = (message: Message & { seq?: number | null }) =>
    `${String(message.seq ?? '-').padStart(3)} ${message.role.padEnd(9)} ${textOf(message).slice(0, 100)}`;
  console.log(`\nthread ${threadId}\n\neffective history (${history.length} messages: what the model sees next)`);
  history.forEach((message) => console.log(`  ${show(message)}`));
  console.log(`\ntranscript (${transcript.length} committed messages, nothing deleted)`);
  transcript.forEach((message) => console.log(`  ${show(message)}`));
  console.log(`\nsubsessions: ${subsessions.join(', ')}`);
  repairs.forEach((repair) => console.log(`repair at seq ${repair.seq}, evidence kept: ${show(repair.repairMessage)}`));
} finally {
  await app.close();
}

function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'tool-call') return `-> ${part.toolName}(${JSON.stringify(part.input)})`;
      if (part.type === 'tool-result') return `<- ${part.toolName}: ${JSON.stringify('value' in part.output ? part.output.value : part.output.type)}`;
      return 'text' in part ? part.text : `[${part.type}]`;
    })
    .join(' ');
}
