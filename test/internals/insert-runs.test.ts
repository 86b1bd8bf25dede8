// How a batch is split into INSERTs: one for a batch of normal size, bounded runs in order for a long one.
import { insertRuns, MAX_INSERT_CHARS, MAX_INSERT_ROWS, textLength } from '../../src/engine/insert-runs.js';

const sizes = <T>(runs: T[][]) => runs.map((run) => run.length);

test('a batch of normal size, or of exactly MAX_INSERT_ROWS short rows, is one run', () => {
  expect(insertRuns([], () => 1)).toEqual([[]]);
  expect(insertRuns(['a'], () => MAX_INSERT_CHARS * 2)).toEqual([['a']]);
  expect(sizes(insertRuns(Array(10).fill('x'), () => 100))).toEqual([10]);
  expect(sizes(insertRuns(Array(MAX_INSERT_ROWS).fill('x'), () => 100))).toEqual([MAX_INSERT_ROWS]);
});

test('a long batch is split into runs of at most MAX_INSERT_ROWS rows, in order', () => {
  const rows = Array.from({ length: 2 * MAX_INSERT_ROWS + 1 }, (_, i) => i);
  const runs = insertRuns(rows, () => 10);
  expect(sizes(runs)).toEqual([MAX_INSERT_ROWS, MAX_INSERT_ROWS, 1]);
  expect(runs.flat()).toEqual(rows);
});

test('a run holds at most MAX_INSERT_CHARS of text, and a row longer than that is a run of its own', () => {
  const quarter = MAX_INSERT_CHARS / 4;
  expect(sizes(insertRuns([1, 2, 3, 4, 5], () => quarter))).toEqual([4, 1]);
  expect(sizes(insertRuns([quarter, MAX_INSERT_CHARS + 1, quarter, quarter], (size) => size))).toEqual([1, 1, 2]);
});

test('textLength counts the characters of the text values only', () => {
  expect(textLength(['ab', null, 3, new Date(0), 'cde'])).toBe(5);
});
