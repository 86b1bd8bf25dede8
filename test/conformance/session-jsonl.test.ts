// The kit's sessionJsonl suite (nestjs-agent-store/testing) on every opener.
import { sessionJsonl, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { sessionJsonl }));
