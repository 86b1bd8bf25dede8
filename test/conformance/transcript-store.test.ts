// The kit's transcriptStore suite (nestjs-agent-store/testing) on every opener.
import { transcriptStore, runSuites } from '../../src/testing/index.js';
import { eachBackend } from '../support/openers.js';

eachBackend((backend) => runSuites(backend, { transcriptStore }));
