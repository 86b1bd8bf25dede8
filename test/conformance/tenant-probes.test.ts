// The kit's tenantProbes suite (nestjs-agent-store/testing) on every opener.
import { tenantProbes, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { tenantProbes }));
