// The byte work of LangGraph's value deltas (src/integrations/langgraph/langgraph-deltas.ts), against
// the obvious byte loop and a chain built by hand, on random values.
import { randomBytes, randomInt } from 'node:crypto';
import { commonPrefixLength, deltaOf, MAX_DEPTH, rebuild, ValueBases, type StoredPart } from '../../src/integrations/langgraph/langgraph-deltas.js';

const naivePrefix = (a: Uint8Array, b: Uint8Array) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

test('commonPrefixLength is the byte loop’s answer, for a mismatch anywhere and for one value a prefix of the other', () => {
  for (let round = 0; round < 500; round++) {
    const a = randomBytes(randomInt(0, 3000));
    const b = Buffer.from(a.subarray(0, randomInt(0, a.length + 1)));
    const tail = randomBytes(randomInt(0, 50));
    const c = Buffer.concat([b, tail]);
    expect(commonPrefixLength(a, c)).toBe(naivePrefix(a, c));
    expect(commonPrefixLength(c, a)).toBe(naivePrefix(a, c));
  }
  // Views into a larger buffer compare their own bytes only.
  const shared = Buffer.from('xxABCDEFyyABCDzz');
  expect(commonPrefixLength(shared.subarray(2, 8), shared.subarray(10, 14))).toBe(4);
});

test('rebuild follows a chain of deltas to the value, whatever each took of the one below', () => {
  for (let round = 0; round < 200; round++) {
    const values = [randomBytes(randomInt(0, 500))];
    const parts = new Map<string, StoredPart>([['0', { bytes: values[0], baseVersion: null, prefixLength: null }]]);
    const depth = randomInt(1, MAX_DEPTH + 1);
    for (let v = 1; v <= depth; v++) {
      const below = values[v - 1];
      const prefixLength = randomInt(0, below.length + 1);
      const tail = randomBytes(randomInt(0, 100));
      values.push(Buffer.concat([below.subarray(0, prefixLength), tail]));
      parts.set(String(v), { bytes: tail, baseVersion: String(v - 1), prefixLength });
    }
    const built = rebuild(parts.get(String(depth))!, (version) => parts.get(version));
    expect(built && Buffer.from(built.bytes).equals(values[depth])).toBe(true);
    expect(built?.depth).toBe(depth);
  }
});

test('rebuild gives nothing for a missing base, a base shorter than the prefix taken, or a chain longer than MAX_DEPTH', () => {
  const whole = { bytes: Buffer.from('abcdef'), baseVersion: null, prefixLength: null };
  expect(rebuild({ bytes: Buffer.from('X'), baseVersion: 'gone', prefixLength: 2 }, () => undefined)).toBeUndefined();
  expect(rebuild({ bytes: Buffer.from('X'), baseVersion: 'w', prefixLength: 7 }, () => whole)).toBeUndefined();
  expect(Buffer.from(rebuild({ bytes: Buffer.from('X'), baseVersion: 'w', prefixLength: 6 }, () => whole)!.bytes).toString()).toBe('abcdefX');
  const loop: StoredPart = { bytes: Buffer.from('X'), baseVersion: 'self', prefixLength: 0 };
  expect(rebuild(loop, () => loop)).toBeUndefined();
});

test('deltaOf: none for a small value, the same version, an unrelated value or a full chain; else the tail after the shared bytes', () => {
  const base = { version: '1', nonce: 7, bytes: Buffer.from(`[${'"m",'.repeat(1000)}"m"]`), depth: 0 };
  const grown = Buffer.from(`[${'"m",'.repeat(1001)}"n"]`);
  expect(deltaOf(base, '2', grown)).toEqual({
    baseVersion: '1',
    baseNonce: 7,
    prefixLength: base.bytes.length - 1,
    tail: grown.subarray(base.bytes.length - 1),
  });
  expect(deltaOf(base, '1', grown)).toBeUndefined();
  expect(deltaOf({ ...base, depth: MAX_DEPTH }, '2', grown)).toBeUndefined();
  expect(deltaOf(base, '2', Buffer.from('"small"'))).toBeUndefined();
  expect(deltaOf(base, '2', randomBytes(grown.length))).toBeUndefined();
  expect(deltaOf(undefined, '2', grown)).toBeUndefined();
});

test('ValueBases keeps the most recently used values within its bytes, and none too small to be a base', () => {
  const bases = new ValueBases(10_000);
  const value = (n: number) => ({ version: String(n), nonce: n, bytes: Buffer.alloc(4_000, n), depth: 0 });
  bases.set('lane', 'a', value(1));
  bases.set('lane', 'b', value(2));
  expect(bases.get('lane', 'a')?.version).toBe('1');
  bases.set('lane', 'c', value(3));
  // b was the least recently used.
  expect(bases.get('lane', 'b')).toBeUndefined();
  expect([bases.get('lane', 'a')?.version, bases.get('lane', 'c')?.version]).toEqual(['1', '3']);
  bases.set('lane', 'a', { ...value(4), bytes: Buffer.from('tiny') });
  expect(bases.get('lane', 'a')).toBeUndefined();
  expect(bases.get('other lane', 'c')).toBeUndefined();
});
