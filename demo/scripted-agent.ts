// A scripted agent (no network model) that uses the stores the way a real agent
// loop does: tool calls, a sub-agent registered as a subsession, a compaction,
// and a crash between a tool call and its result that is repaired on reload.
import { Inject, Injectable } from '@nestjs/common';
import { HistoryProvider, TenantStores, type MessageInput, type ScopedStores } from 'nestjs-agent-store';

const call = (toolCallId: string, toolName: string, input: Record<string, string>): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId, toolName, input }],
});
const result = (toolCallId: string, toolName: string, value: unknown): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId, toolName, output: { type: 'json', value: value as never } }],
});

/** The demo's agent works for one tenant, as a multi-tenant agent service would: through that tenant's stores. */
export const DEMO_TENANT = 'demo';

@Injectable()
export class ScriptedAgent {
  private readonly stores: ScopedStores;

  constructor(@Inject(TenantStores) tenants: TenantStores) {
    this.stores = tenants.forTenant(DEMO_TENANT);
  }

  /** Runs the whole script in a new session `threadId` and returns what the model would see next, and the full record. */
  async run(threadId: string) {
    await this.stores.sessions.create({ id: threadId, title: 'A weekend in Lisbon' });
    await this.plan(threadId);
    await this.delegate(threadId, `${threadId}/researcher`);
    await this.compact(threadId);
    await this.crashMidTool(threadId);
    await this.reload(threadId);
    return {
      history: await this.stores.messages.getHistory(threadId),
      transcript: await this.stores.messages.getTranscript(threadId),
      subsessions: await this.stores.transcripts.getSubsessions(threadId),
      repairs: await this.stores.messages.getRepairs(threadId),
    };
  }

  /** One tool-calling turn, stored atomically after it succeeded. */
  private async plan(threadId: string): Promise<void> {
    const history = new HistoryProvider(threadId, this.stores.messages);
    const request: MessageInput[] = [{ role: 'user', content: 'Plan a weekend in Lisbon for two.' }];
    await history.beforeRun({ messages: request });
    await history.afterRun(request, [
      call('flights-1', 'search_flights', { to: 'LIS' }),
      result('flights-1', 'search_flights', { cheapest: 'TP 1337, Friday 18:05' }),
      { role: 'assistant', content: 'Flights found. I will ask a researcher for neighbourhoods.' },
    ]);
  }

  /** A sub-agent works in a session of its own, registered as a subsession of the main one. */
  private async delegate(threadId: string, subagentId: string): Promise<void> {
    await this.stores.sessions.create({ id: subagentId, parentId: threadId, title: 'Researcher' });
    await this.stores.transcripts.appendMessages(subagentId, [
      { role: 'user', content: 'Which Lisbon neighbourhoods suit a first visit?' },
      { role: 'assistant', content: 'Alfama for views, Baixa for walking, Príncipe Real for food.' },
    ]);
    await this.stores.messages.appendMany(threadId, [
      call('research-1', 'ask_researcher', { question: 'neighbourhoods' }),
      result('research-1', 'ask_researcher', { answer: 'Alfama, Baixa, Príncipe Real' }),
    ]);
  }

  /** The context grew: everything but the last tool exchange becomes a summary. */
  private async compact(threadId: string): Promise<void> {
    const seen = await this.stores.messages.getHistory(threadId);
    const kept = seen.slice(-2); // read output is valid input: its seq is ignored
    const summary: MessageInput = { role: 'system', content: 'Summary: flights TP 1337 on Friday; the user wants a weekend in Lisbon for two.' };
    await this.stores.messages.appendCompaction(threadId, [summary, ...kept], seen.length, kept.length);
  }

  /** The process dies after the model asked for a tool and before the tool answered. */
  private async crashMidTool(threadId: string): Promise<void> {
    await this.stores.messages.append(threadId, call('hotel-1', 'book_hotel', { area: 'Alfama', nights: '2' }));
  }

  /** On reload, every orphaned tool call is answered by an error result, kept as evidence: the model can go on. */
  private async reload(threadId: string): Promise<void> {
    await this.stores.messages.repairToolCalls(threadId);
  }
}
