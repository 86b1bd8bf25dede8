// The binding the kit's suites write their events as: its kinds declared as a
// binding declares its own (see defineBinding), one of each way a kind may keep
// and check what it holds.
import { defineBinding } from '../contract/index.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const KIT_BINDING = defineBinding({
  name: 'conformance-kit',
  sessionIdPrefixes: ['conformance-kit:'],
  kinds: {
    /** Any value the store keeps, under any key or none. */
    'conformance-kit.event': { anyKey: true },
    'conformance-kit.other': { anyKey: true },
    'conformance-kit.dropped': { anyKey: true },
    /** Any value the store keeps, under no key. */
    'conformance-kit.plain': {},
    /** Kept as its JSON text alone, under any key or none. */
    'conformance-kit.text': { jsonText: true, anyKey: true },
    /** A check that reads into the value, and throws on another shape (the store says so as a StoreValidationError). */
    'conformance-kit.checked': { holds: (value) => (value as { inner: { ok: unknown } }).inner.ok === true },
    /** A record with a string id, keyed `k:<id>`. */
    'conformance-kit.keyed': { holds: (value) => isRecord(value) && typeof value.id === 'string', keyOf: (value) => `k:${(value as { id: string }).id}` },
  },
});
