// The kit's integrationStore suite (nestjs-agent-store/testing) on every opener.
import { integrationStore, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { integrationStore }));
