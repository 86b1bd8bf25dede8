// The kit's sessionStore suite (nestjs-agent-store/testing) on every opener.
import { sessionStore, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { sessionStore }));
