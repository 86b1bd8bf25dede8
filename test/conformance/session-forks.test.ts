// The kit's sessionForks suite (nestjs-agent-store/testing) on every opener.
import { sessionForks, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { sessionForks }));
