// LangGraph's own conformance suite for checkpoint savers, `validate` of
// @langchain/langgraph-checkpoint-validation (1.1.1), on LangGraphCheckpointer on every
// database, unchanged: each checkpointer it creates is a fresh tenant's, so that no two
// see each other's threads (its deleteThread test uses the thread ids "1" and "2").
import { randomUUID } from 'node:crypto';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase } from '../../support/databases.js';
import { storeFor } from '../../support/store-app.js';

// The suite is written for vitest, and calls its expect.soft once; in this file jest's expect stands in for it.
(expect as unknown as { soft?: typeof expect }).soft ??= expect;

eachDatabase((database) => {
  const store = storeFor(database);
  validate({
    checkpointerName: 'nestjs-agent-store',
    createCheckpointer: () => new LangGraphCheckpointer(store.db).forTenant(`validation-${randomUUID()}`),
  });
});
