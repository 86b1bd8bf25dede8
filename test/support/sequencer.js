// Jest's order of test files: the slowest ones first (test/legs.js), the others
// as jest orders them (by its timing cache, else largest first). A fresh clone
// has no timing cache, so without the list its slowest file could start last.
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';
import { SLOWEST_FIRST } from '../legs.js';

export default class SlowestFirstSequencer extends Sequencer {
  async sort(tests) {
    const rank = (test) => {
      const index = SLOWEST_FIRST.indexOf(relative(test.context.config.rootDir, test.path));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // A stable sort: jest's own order within each rank.
    return [...(await super.sort(tests))].sort((a, b) => rank(a) - rank(b));
  }
}
