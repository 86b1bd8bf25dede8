// LangGraph's own conformance suite for checkpoint savers, `validate` of
// @langchain/langgraph-checkpoint-validation (1.1.1), on LangGraphCheckpointer on every
// database, unchanged: each checkpointer it creates is a fresh tenant's, so that no two
// see each other's threads (its deleteThread test uses the thread ids "1" and "2").
// Twice per database: its reads and puts as statements on the driver (the store on its
// url), and through Prisma (a client the store cannot reach the driver under).
import { randomUUID } from 'node:crypto';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { LangGraphCheckpointer } from '../../../src/integrations/langgraph/index.js';
import { eachDatabase } from '../../support/databases.js';
import { eachStorePath } from '../../support/store-app.js';

// The suite is written for vitest, and calls its expect.soft once; in this file jest's expect stands in for it.
(expect as unknown as { soft?: typeof expect }).soft ??= expect;

eachDatabase((database) => {
  eachStorePath(database, (store) => {
    validate({
      checkpointerName: 'nestjs-agent-store',
      createCheckpointer: () => new LangGraphCheckpointer(store.integration).forTenant(`validation-${randomUUID()}`),
    });
  });
});
