/**
 * The conformance kit: hand it an opener (how you open the store) and it registers the suites every opener of the store
 * passes (docs/databases/adding-a-database.md).
 * @module nestjs-agent-store/testing
 */
import { globalRunner, runSuites, type StoreOpener, type Suite, type TestRunner } from './kit.js';
import { concurrency } from './suites/concurrency.js';
import { exactValues } from './suites/exact-values.js';
import { historyProvider } from './suites/history-provider.js';
import { hostileValues } from './suites/hostile-values.js';
import { integrationStore } from './suites/integration-store.js';
import { messagePages } from './suites/message-pages.js';
import { messageStore } from './suites/message-store.js';
import { sessionForks } from './suites/session-forks.js';
import { sessionJsonl } from './suites/session-jsonl.js';
import { sessionLog } from './suites/session-log.js';
import { sessionLogPages } from './suites/session-log-pages.js';
import { sessionStore } from './suites/session-store.js';
import { tenantProbes } from './suites/tenant-probes.js';
import { tenantStores } from './suites/tenant-stores.js';
import { transcriptStore } from './suites/transcript-store.js';

export { globalRunner, runSuites, type KitStore, type StoreOpener, type Suite, type SuiteContext, type TestRunner } from './kit.js';
export {
  concurrency,
  exactValues,
  historyProvider,
  hostileValues,
  integrationStore,
  messagePages,
  messageStore,
  sessionForks,
  sessionJsonl,
  sessionLog,
  sessionLogPages,
  sessionStore,
  tenantProbes,
  tenantStores,
  transcriptStore,
};
/** What the suites read through the public API to prove a write changed, or left, nothing. */
export { boundaryCount, exportedLines, footprintOf, type ExportedLine, type Stores } from './footprint.js';

/** The kit's suites, by name: all but `concurrency`, which is timing-bound (two stores writing at once) and best run alone, with runSuites. */
export const CONFORMANCE_SUITES: Readonly<Record<string, Suite>> = Object.freeze({
  messageStore,
  exactValues,
  transcriptStore,
  sessionStore,
  sessionJsonl,
  tenantStores,
  tenantProbes,
  sessionForks,
  messagePages,
  historyProvider,
  hostileValues,
  integrationStore,
  sessionLog,
  sessionLogPages,
});

/** Registers the kit's suites (`suites`, or all of them) once per opener, each opener in a describe block `[label]`. */
export function runConformance(options: { openers: StoreOpener[]; suites?: Record<string, Suite>; runner?: TestRunner }): void {
  const runner = options.runner ?? globalRunner();
  for (const opener of options.openers) runner.describe(`[${opener.label}]`, () => runSuites(opener, options.suites ?? CONFORMANCE_SUITES, runner));
}
