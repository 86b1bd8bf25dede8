// The kit's exactValues suite (nestjs-agent-store/testing) on every opener.
import { exactValues, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { exactValues }));
