// dataCopyOf, the copy the framework adapters take of what they are given before they check it: read
// once, what the store keeps kept (a URL as a URL, where structuredClone makes {} of it on Node 20),
// what it cannot keep a StoreValidationError, and never a walk that outlasts its input.
import { MAX_JSON_DEPTH, StoreValidationError } from '../../src/index.js';
import { dataCopyOf } from '../../src/contract/index.js';

test('a URL is copied as a URL (by its state, not an own href), a URL of a subclass is refused', () => {
  const url = new URL('https://example.test/a?b=c');
  Object.defineProperty(url, 'href', { value: 'https://fake/' });
  const copy = dataCopyOf({ url }, 'value') as { url: URL };
  expect(copy.url).toBeInstanceOf(URL);
  expect(copy.url.toString()).toBe('https://example.test/a?b=c');
  class Mine extends URL {}
  expect(() => dataCopyOf({ url: new Mine('https://example.test/') }, 'value')).toThrow(StoreValidationError);
});

test('bytes are copied as their own bytes, not the pool under a small Buffer', () => {
  const copy = dataCopyOf({ raw: Buffer.from([1, 2, 3]) }, 'value') as { raw: Uint8Array };
  expect(copy.raw).toBeInstanceOf(Uint8Array);
  expect([...copy.raw]).toEqual([1, 2, 3]);
  expect(copy.raw.buffer.byteLength).toBe(3);
});

test('getters are read once; an own __proto__ key stays a key; a null-prototype object stays one; cycles are kept', () => {
  let reads = 0;
  const given = JSON.parse('{"__proto__": {"isAdmin": true}}') as Record<string, unknown>;
  Object.defineProperty(given, 'counted', { get: () => ++reads, enumerable: true });
  const copy = dataCopyOf(given, 'value') as Record<string, unknown>;
  expect(reads).toBe(1);
  expect(copy.counted).toBe(1);
  expect(Object.hasOwn(copy, '__proto__')).toBe(true);
  expect((copy as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  expect(Object.getPrototypeOf(dataCopyOf(Object.create(null), 'value'))).toBeNull();
  const cycle: { self?: unknown } = {};
  cycle.self = cycle;
  const copied = dataCopyOf(cycle, 'value') as { self: unknown };
  expect(copied.self).toBe(copied);
});

test('an array is read to the length it had: a hole, a huge sparse array or one that grows as it is read ends at once', () => {
  const started = Date.now();
  const sparse = dataCopyOf({ x: Object.assign([], { length: 2 ** 32 - 1 }) }, 'value') as { x: unknown[] };
  expect(sparse.x.length).toBe(2 ** 32 - 1);
  expect(0 in sparse.x).toBe(false);
  const growing: unknown[] = [];
  Object.defineProperty(growing, 0, { get: () => growing.push(1), enumerable: true, configurable: true });
  expect((dataCopyOf(growing, 'value') as unknown[]).length).toBe(1);
  Object.defineProperty(Array.prototype, 1, { value: 'inherited', configurable: true });
  try {
    // eslint-disable-next-line no-sparse-arrays
    expect(Object.hasOwn(dataCopyOf([0, , 2], 'value') as unknown[], 1)).toBe(false);
  } finally {
    delete (Array.prototype as unknown as Record<number, unknown>)[1];
  }
  expect(Date.now() - started).toBeLessThan(1_000);
});

test('what cannot be data is a StoreValidationError: a function, a symbol, a Proxy, nesting past MAX_JSON_DEPTH', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i <= MAX_JSON_DEPTH + 1; i++) deep = [deep];
  for (const value of [{ f: () => 1 }, { s: Symbol('s') }, { p: new Proxy({}, {}) }, deep])
    expect(() => dataCopyOf(value, 'value')).toThrow(StoreValidationError);
  expect(() => dataCopyOf(deep, 'value')).toThrow(/deeper than/);
});
