// HistoryProvider: the stored history of one thread, wired around an agent run.
import { Inject, Injectable } from '@nestjs/common';
import { MessageStore } from './message-store.js';
import type { HistoryMessage, Message, MessageInput } from '../../message.types.js';
import { idOf, messagesOf } from '../../values/validation.js';

/** What an agent loop hands to a run: at least its input messages. */
export interface RunContext<M = MessageInput | HistoryMessage> {
  /** The run's messages, in order. */
  messages: M[];
}

/** One thread's history for any agent loop: injected before a run, stored after a successful one. */
export class HistoryProvider {
  constructor(
    /** The thread whose history this is. */
    readonly threadId: string,
    private readonly messages: MessageStore,
  ) {}

  /** The context with the stored (effective) history placed before the run's input messages. */
  async beforeRun<C extends RunContext>(context: C): Promise<C & RunContext<MessageInput | HistoryMessage>> {
    const history = await this.messages.getHistory(this.threadId);
    return { ...context, messages: [...history, ...context.messages] };
  }

  /**
   * Stores the run's request messages (its new input, not the injected history)
   * and its response messages in one transaction, contiguous in the thread.
   * A run that failed (`error` given) stores nothing.
   */
  async afterRun(requestMessages: MessageInput[], responseMessages: MessageInput[], error?: unknown): Promise<void> {
    if (error !== undefined && error !== null) return;
    const batch: Message[] = [...messagesOf(requestMessages, 'requestMessages'), ...messagesOf(responseMessages, 'responseMessages')];
    await this.messages.appendMany(this.threadId, batch);
  }

  /** The stored effective history. */
  listMessages(): Promise<HistoryMessage[]> {
    return this.messages.getHistory(this.threadId);
  }

  /** `{ messages }`, read from the store: await it (it is not JSON.stringify's synchronous hook). */
  async toJSON(): Promise<{
    /** The stored effective history. */
    messages: HistoryMessage[];
  }> {
    return { messages: await this.listMessages() };
  }
}

/** Hands out HistoryProviders bound to threads. */
@Injectable()
export class HistoryProviders {
  constructor(@Inject(MessageStore) private readonly messages: MessageStore) {}

  /** A HistoryProvider for `threadId`, checked as the stores check thread ids (StoreValidationError). */
  forThread(threadId: string): HistoryProvider {
    return new HistoryProvider(idOf(threadId, 'threadId'), this.messages);
  }
}
