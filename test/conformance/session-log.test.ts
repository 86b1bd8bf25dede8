// The kit's sessionLog suite (nestjs-agent-store/testing) on every opener.
import { sessionLog, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { sessionLog }));
