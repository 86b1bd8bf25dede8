// The kit's historyProvider suite (nestjs-agent-store/testing) on every opener.
import { historyProvider, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { historyProvider }));
