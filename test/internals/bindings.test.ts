// defineBinding: a binding's declaration is checked whole when it is made, and
// what it declares is its own: its kinds and its session ids, case aside.
import { StoreConfigurationError, StoreValidationError } from '../../src/index.js';
import { bindingOfKind, bindingOfSessionId, declaredKind, defineBinding, keyFor, PACKAGE_BINDINGS } from '../../src/values/bindings.js';
import type { IntegrationBinding } from '../../src/values/binding.types.js';

let n = 0;
const fresh = () => `unit-${++n}`;

test.each<[string, (name: string) => unknown]>([
  ['not an object', () => null],
  ['a name in upper case', () => ({ name: 'Shouting', kinds: {} })],
  ['a name with a dot', () => ({ name: 'a.b', kinds: {} })],
  ['a name of 65 characters', () => ({ name: `a${'b'.repeat(64)}`, kinds: {} })],
  ['no kinds', (name) => ({ name })],
  ['an unknown field', (name) => ({ name, kinds: {}, tables: [] })],
  ['a kind outside its name', (name) => ({ name, kinds: { 'other.event': {} } })],
  ['a kind in upper case', (name) => ({ name, kinds: { [`${name}.Event`]: {} } })],
  ['a kind with an empty part', (name) => ({ name, kinds: { [`${name}..event`]: {} } })],
  ['a kind ending with a dot', (name) => ({ name, kinds: { [`${name}.event.`]: {} } })],
  ['a kind that is not an object', (name) => ({ name, kinds: { [`${name}.event`]: true } })],
  ['a misspelt field of a kind', (name) => ({ name, kinds: { [`${name}.event`]: { keyof: () => null } } })],
  ['a jsonText that is not a boolean', (name) => ({ name, kinds: { [`${name}.event`]: { jsonText: 'yes' } } })],
  ['a holds that is not a function', (name) => ({ name, kinds: { [`${name}.event`]: { holds: true } } })],
  ['both keyOf and anyKey', (name) => ({ name, kinds: { [`${name}.event`]: { keyOf: () => null, anyKey: true } } })],
  ['sessionIdPrefixes that are not a list', (name) => ({ name, kinds: {}, sessionIdPrefixes: null })],
  ['a prefix outside its name', (name) => ({ name, kinds: {}, sessionIdPrefixes: ['other:'] })],
  ['a prefix not ending with a colon', (name) => ({ name, kinds: {}, sessionIdPrefixes: [`${name}-`] })],
  ['a prefix in upper case', (name) => ({ name, kinds: {}, sessionIdPrefixes: [`${name}:X:`] })],
  ["a package binding's name", () => ({ name: 'langgraph', kinds: {} })],
])('refuses %s with a StoreConfigurationError, and declares nothing', (_what, declaration) => {
  const name = fresh();
  expect(() => defineBinding(declaration(name) as IntegrationBinding)).toThrow(StoreConfigurationError);
  expect(bindingOfKind(`${name}.event`)).toBeUndefined();
  // The name is still free.
  expect(defineBinding({ name, kinds: {} }).name).toBe(name);
});

test('a declaration given again is the same one; another under its name is refused', () => {
  const name = fresh();
  const given: IntegrationBinding = { name, kinds: { [`${name}.event`]: { anyKey: true } } };
  const declared = defineBinding(given);
  expect(defineBinding(given)).toBe(declared);
  expect(defineBinding(declared)).toBe(declared);
  expect(() => defineBinding({ ...given })).toThrow(/declared already/);
  expect(Object.isFrozen(declared) && Object.isFrozen(declared.kinds)).toBe(true);
});

test('its kinds and session ids are its own, case aside; the package keeps its own bindings', () => {
  const name = fresh();
  defineBinding({ name, kinds: { [`${name}.event`]: {} }, sessionIdPrefixes: [`${name}:`] });
  for (const type of [`${name}.event`, `${name}.undeclared`, `${name.toUpperCase()}.EVENT`]) expect(bindingOfKind(type)).toBe(name);
  expect(declaredKind(`${name}.event`)).toBeDefined();
  expect(declaredKind(`${name.toUpperCase()}.event`)).toBeUndefined();
  expect(bindingOfKind(`${name}-other.event`)).toBeUndefined();
  expect(bindingOfSessionId(`${name.toUpperCase()}:x`)).toEqual({ binding: name, prefix: `${name}:` });
  expect(bindingOfSessionId(`${name}x`)).toBeUndefined();
  expect(Object.values(PACKAGE_BINDINGS).map((binding) => binding.name)).toEqual(['openai-agents', 'claude-agent-sdk', 'langgraph']);
  expect(bindingOfKind('openai-agents.item')).toBe('openai-agents');
  expect(bindingOfSessionId('claude-agent-sdk:x')).toEqual({ binding: 'claude-agent-sdk', prefix: 'claude-agent-sdk:' });
});

test("keyFor: keyOf's key, checked as an id; a key said must be it; a keyless kind takes none; anyKey takes any", () => {
  const kind = { keyOf: (value: unknown) => (value as { k: unknown }).k as string };
  expect(keyFor('x.keyed', kind, { k: 'a' }, undefined, 'key')).toBe('a');
  expect(keyFor('x.keyed', kind, { k: null }, undefined, 'key')).toBeNull();
  for (const k of [42, undefined, '', 'trailing ', 'x'.repeat(192)])
    expect(() => keyFor('x.keyed', kind, { k }, undefined, 'key')).toThrow(StoreValidationError);
  expect(() => keyFor('x.keyed', kind, { k: 'a' }, 'b', 'key')).toThrow(/not the key its binding gives/);
  expect(() => keyFor('x.keyed', kind, null, undefined, 'key')).toThrow(StoreValidationError);
  expect(() => keyFor('x.plain', {}, 1, 'a', 'key')).toThrow(/has no key/);
  expect(keyFor('x.plain', {}, 1, null, 'key')).toBeNull();
  expect(keyFor('x.any', { anyKey: true }, 1, 'a', 'key')).toBe('a');
});
