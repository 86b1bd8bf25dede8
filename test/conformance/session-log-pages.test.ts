// The kit's sessionLogPages suite (nestjs-agent-store/testing) on every opener.
import { sessionLogPages, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { sessionLogPages }));
