// POST /chat: the AI SDK's chat recipe over ChatStore, answered by a scripted
// model (the SDK's mock, offline). The client sends its chat's id and its new
// message. The chat with that message is saved before the model runs (so bad
// input is a 400, not a failure after the reply streamed), and again whole as
// the SDK's onFinish leaves it; ChatStore writes only what changed. GET /chat/:id loads it again.
import { BadRequestException, Body, Controller, Get, Inject, Logger, Param, Post, Res } from '@nestjs/common';
import { convertToModelMessages, createIdGenerator, safeValidateUIMessages, simulateReadableStream, streamText, type UIMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { Response } from 'express';
import { ChatStore, StoreValidationError } from 'nestjs-agent-store';

@Controller('chat')
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(@Inject(ChatStore) private readonly chats: ChatStore) {}

  @Post()
  async chat(@Body() { id, message }: { id: string; message: UIMessage }, @Res() response: Response): Promise<void> {
    const previous = await badRequest(() => this.chats.loadChat<UIMessage>(id));
    const validated = await safeValidateUIMessages<UIMessage>({ messages: [...previous, message] });
    if (!validated.success) throw new BadRequestException(validated.error.message);
    // The user's turn is kept even if the model fails; the store's checks (ids, values) answer 400 here.
    await badRequest(() => this.chats.saveChat(id, validated.data));
    const result = streamText({ model: scriptedModel(), messages: await convertToModelMessages(validated.data) });
    result.pipeUIMessageStreamToResponse(response, {
      originalMessages: validated.data,
      // Ids given on the server: the saved chat and the client's agree.
      generateMessageId: createIdGenerator({ prefix: 'msg', size: 16 }),
      // After the reply streamed, a failure can only be logged: an unhandled rejection would stop the process.
      onFinish: ({ messages }) => this.chats.saveChat(id, messages).catch((error: unknown) => this.logger.error(`chat ${id} was not saved`, error)),
    });
  }

  @Get(':id')
  load(@Param('id') id: string): Promise<UIMessage[]> {
    return badRequest(() => this.chats.loadChat<UIMessage>(id));
  }
}

/** A chat id the store refuses is the client's mistake. */
async function badRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreValidationError) throw new BadRequestException(error.message);
    throw error;
  }
}

/** A model that answers the last user message by quoting it, a word at a time. */
function scriptedModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const last = prompt.findLast((message) => message.role === 'user');
      const said = last?.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ') ?? '';
      const words = `You said: "${said}". This reply is scripted.`.split(/(?<= )/);
      return {
        stream: simulateReadableStream({
          chunkDelayInMs: 20,
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 'reply' },
            ...words.map((delta) => ({ type: 'text-delta' as const, id: 'reply', delta })),
            { type: 'text-end', id: 'reply' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: said.length, noCache: said.length, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: words.length, text: words.length, reasoning: undefined },
              },
            },
          ],
        }),
      };
    },
  });
}
