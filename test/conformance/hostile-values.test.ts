// The kit's hostileValues suite (nestjs-agent-store/testing) on every opener.
import { hostileValues, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { hostileValues }));
