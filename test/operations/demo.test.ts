// The demo's scripted agent, on a real SQLite file: what `npm run demo` shows is what the stores did.
import { Test } from '@nestjs/testing';
import { ScriptedAgent } from '../../demo/scripted-agent.js';
import { balanceToolCalls, StoreModule, TenantStores } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

test('tool calls, a sub-agent, a compaction and a repaired crash leave a balanced history and the whole transcript', async () => {
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true })], providers: [ScriptedAgent] }).compile();
  await app.init();
  try {
    const { history, transcript, subsessions, repairs } = await app.get(ScriptedAgent).run('trip');
    expect(history[0]).toMatchObject({ role: 'system', seq: null });
    expect(history.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'assistant', 'tool']);
    expect(balanceToolCalls(history)).toBeNull();
    expect(balanceToolCalls(transcript)?.orphans.map((orphan) => orphan.toolName)).toEqual(['book_hotel']);
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'assistant', 'tool', 'assistant']);
    expect(subsessions).toEqual(['trip/researcher']);
    expect(repairs).toHaveLength(1);
    expect(repairs[0].repairMessage).toMatchObject({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'hotel-1', output: { type: 'error-text' } }] });
    // The agent works in the demo tenant: its sessions are the demo tenant's, and no one else's.
    const tenants = app.get<TenantStores>(TenantStores);
    expect((await tenants.forTenant('demo').sessions.list()).sessions.map((s) => s.id).sort()).toEqual(['trip', 'trip/researcher']);
    expect((await tenants.forTenant('someone-else').sessions.list()).sessions).toEqual([]);
  } finally {
    await app.close();
  }
});
