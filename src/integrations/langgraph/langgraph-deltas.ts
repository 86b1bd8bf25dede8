// A LangGraph channel that grows (the message list) gets a new version at every
// step, each the previous one plus a little. Stored whole, a thread of n steps
// writes O(n²) bytes; stored as a delta (the base version's first `prefixLength`
// bytes, then a tail) a step writes only what it added. A delta names its base by
// version and by the random nonce of the base's row, and is written only if that
// row is still there (in the put's transaction): a put compares against what it
// last wrote or read (ValueBases), which another process may have deleted since.
// Chains are at most MAX_DEPTH deltas long, so a read joins at most that many rows.

/** What a later put may store a delta against: a value as stored, with its row's nonce and the deltas under it. */
export interface ValueBase {
  version: string;
  nonce: number;
  bytes: Uint8Array;
  /** How many deltas its row sits on (0: stored whole). */
  depth: number;
}

/** A value stored as the first `prefixLength` bytes of its base's value, then a tail. */
export interface Delta {
  baseVersion: string;
  baseNonce: number;
  prefixLength: number;
  tail: Uint8Array;
}

/** Below this, a value is stored whole: its delta would save less than a row costs. */
const MIN_DELTA_BYTES = 2048;
/** Deltas on deltas: a read rebuilds a value from at most this many rows above a whole one. */
export const MAX_DEPTH = 32;
/** Values kept as bases, per checkpointer and the copies forTenant and withTransaction make of it. */
const MAX_BASE_BYTES = 32 * 2 ** 20;

/** The delta of `bytes` against `base`; undefined when it should be stored whole (small, unrelated, or the chain is long). */
export function deltaOf(base: ValueBase | undefined, version: string, bytes: Uint8Array): Delta | undefined {
  if (base === undefined || base.version === version || base.depth >= MAX_DEPTH || bytes.byteLength < MIN_DELTA_BYTES) return undefined;
  const prefixLength = commonPrefixLength(base.bytes, bytes);
  // A tail of more than half the value saves too little for a read to join one more row.
  if (prefixLength * 2 < bytes.byteLength) return undefined;
  return { baseVersion: base.version, baseNonce: base.nonce, prefixLength, tail: bytes.subarray(prefixLength) };
}

/**
 * The length of the longest common prefix of `a` and `b`. A grown value differs from its base
 * in its last bytes: prefixes shorter by 1, 2, 4… bytes are tried first (one pass over the bytes
 * when the first is shared), then a binary search between the last shared and the first not.
 */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const shorter = Math.min(x.length, y.length);
  // Invariant: the first `equal` bytes are equal; a mismatch lies below `unequal` (or none: `unequal` is the shorter length).
  let equal = 0;
  let unequal = shorter;
  for (let back = 1; back <= shorter; back *= 2) {
    if (x.compare(y, 0, shorter - back, 0, shorter - back) === 0) {
      equal = shorter - back;
      break;
    }
    unequal = shorter - back;
  }
  if (unequal === shorter && x.compare(y, equal, shorter, equal, shorter) === 0) return shorter;
  while (unequal - equal > 1) {
    const middle = (equal + unequal) >>> 1;
    if (x.compare(y, equal, middle, equal, middle) === 0) equal = middle;
    else unequal = middle;
  }
  return equal;
}

/** A stored row of a value: whole (`baseVersion` null) or a delta on the row of its channel at `baseVersion`. */
export interface StoredPart {
  bytes: Uint8Array;
  baseVersion: string | null;
  prefixLength: number | null;
}

/**
 * The value of `top`, rebuilt down its chain (`baseOf` finds a row's base); undefined when a base is
 * missing or shorter than the prefix taken from it, which the store's writes never leave.
 * Each byte of the result is copied once.
 */
export function rebuild(top: StoredPart, baseOf: (version: string) => StoredPart | undefined): { bytes: Uint8Array; depth: number } | undefined {
  const pieces: Uint8Array[] = [];
  // The bytes of `part`'s value still wanted, from its start.
  let wanted = Infinity;
  let part = top;
  let depth = 0;
  while (part.baseVersion !== null) {
    const prefix = part.prefixLength ?? 0;
    if (wanted > prefix) {
      if (wanted !== Infinity && part.bytes.byteLength < wanted - prefix) return undefined;
      pieces.push(part.bytes.subarray(0, wanted - prefix));
    }
    wanted = Math.min(wanted, prefix);
    const base = baseOf(part.baseVersion);
    if (base === undefined || ++depth > MAX_DEPTH) return undefined;
    part = base;
  }
  if (wanted !== Infinity && part.bytes.byteLength < wanted) return undefined;
  pieces.push(part.bytes.subarray(0, wanted));
  if (pieces.length === 1) return { bytes: pieces[0], depth };
  return { bytes: new Uint8Array(Buffer.concat(pieces.reverse())), depth };
}

/**
 * The values a checkpointer wrote or read last, per lane and channel, as bases for its next puts' deltas; the
 * least recently used go first. It keeps the bytes it is given: give it bytes no caller holds, never to be changed.
 */
export class ValueBases {
  readonly #entries = new Map<string, ValueBase>();
  #bytes = 0;

  constructor(private readonly maxBytes = MAX_BASE_BYTES) {}

  get(lane: string, channel: string): ValueBase | undefined {
    const key = keyOf(lane, channel);
    const base = this.#entries.get(key);
    if (base !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, base);
    }
    return base;
  }

  set(lane: string, channel: string, base: ValueBase): void {
    const key = keyOf(lane, channel);
    this.#forget(key);
    if (base.bytes.byteLength < MIN_DELTA_BYTES || base.bytes.byteLength > this.maxBytes) return;
    this.#entries.set(key, base);
    this.#bytes += base.bytes.byteLength;
    for (const [oldest] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#forget(oldest);
    }
  }

  #forget(key: string): void {
    const base = this.#entries.get(key);
    if (base === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= base.bytes.byteLength;
  }
}

const keyOf = (lane: string, channel: string) => `${lane}\u0000${channel}`;
