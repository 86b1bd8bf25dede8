// forRunContext: the tenant of one run does not change under it (found by a reviewer, failing before its fix).
import { randomUUID } from 'node:crypto';
import { RunContext, type AgentInputItem } from '@openai/agents-core';
import { StoreError } from '../../../src/index.js';
import { OpenAIAgentsSessions } from '../../../src/integrations/openai-agents/index.js';
import { SQLITE } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';

type TenantContext = { tenantId: string };
const user = (text: string): AgentInputItem => ({ role: 'user', content: text });

describe('forRunContext, one run context', () => {
  const store = storeFor(SQLITE);
  const sessions = () => new OpenAIAgentsSessions(store.integration);

  test("a run whose context's tenant changes between history calls (a tool mutates it) is refused, not served another tenant's session", async () => {
    const id = `switch-${randomUUID()}`;
    // The id is globex's session.
    await sessions()
      .forTenant('globex')
      .forSession(id)
      .addItems([user('globex private')]);
    const session = sessions().forRunContext(id, { tenantOf: (context: TenantContext) => context.tenantId });
    const runContext = new RunContext<TenantContext>({ tenantId: 'acme' });
    expect(await session.getItems(undefined, runContext)).toEqual([]);
    // Later in the same run, something sets the mutable context's tenant (a tool, a prompt-injected argument).
    runContext.context.tenantId = 'globex';
    const second = await session.getItems(undefined, runContext).then(
      (items) => items,
      (error: unknown) => error,
    );
    // The tenant is pinned to the RunContext at its first call.
    expect(second).toBeInstanceOf(StoreError);
  });
});
