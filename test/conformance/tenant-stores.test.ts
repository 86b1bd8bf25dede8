// The kit's tenantStores suite (nestjs-agent-store/testing) on every opener.
import { tenantStores, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { tenantStores }));
