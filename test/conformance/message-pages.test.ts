// The kit's messagePages suite (nestjs-agent-store/testing) on every opener.
import { messagePages, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { messagePages }));
