// The kit's concurrency suite (nestjs-agent-store/testing) on every opener.
import { concurrency, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { concurrency }));
