// The kit's messageStore suite (nestjs-agent-store/testing) on every opener.
import { messageStore, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { messageStore }));
