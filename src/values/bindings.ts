// The framework bindings' declarations: each binding's name, the kinds of the
// events it writes in sessions' logs (`<name>.<what>`) with what each holds and
// under which key, and the prefixes of the session ids it makes itself. What a
// binding declares is its own: the stores refuse such an event appended by hand
// (SessionStore, the HTTP API) and such an id given to them, the log keeps only
// what a kind holds, and a JSONL import takes a binding's events back as the
// binding would have written them, or not at all.
//
// A declaration is the binding's code, not a store's setting: it holds in the
// whole process from the moment the binding's module is loaded (defineBinding
// runs at its import), for every store. The package's own are declared here.
import { StoreConfigurationError, StoreValidationError } from '../store.errors.js';
import type { BindingKind, IntegrationBinding } from './binding.types.js';
import { idOf, MAX_ID_LENGTH } from './validation.js';
import { CLAUDE_AGENT_SDK, LANGGRAPH, OPENAI_AGENTS } from './package-bindings.js';

export type { BindingKind, IntegrationBinding } from './binding.types.js';

const NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** `<name>.<what>`: lower-case letters, digits, `_` and `-`, in parts joined by dots. */
const KIND = /^[a-z][a-z0-9-]*(\.[a-z0-9_-]+)+$/;
const BINDING_FIELDS = new Set(['name', 'kinds', 'sessionIdPrefixes']);
const KIND_FIELDS = new Set(['jsonText', 'holds', 'keyOf', 'anyKey']);

/** Each declared binding: as given (declaring it again is no change) and as the stores read it, frozen. */
const declared = new Map<string, { given: IntegrationBinding; frozen: IntegrationBinding }>();

const refuse = (message: string) => new StoreConfigurationError(`defineBinding: ${message}`);

/** `kind`'s declaration, its fields checked and copied. */
function kindOf(name: string, kind: string, given: unknown): BindingKind {
  if (!kind.startsWith(`${name}.`) || !KIND.test(kind) || kind.length > MAX_ID_LENGTH)
    throw refuse(`the binding "${name}"'s kind ${JSON.stringify(kind)} must be "${name}.<what>" (lower-case letters, digits, _ and -, parts joined by dots)`);
  if (typeof given !== 'object' || given === null) throw refuse(`the kind ${kind} must be an object`);
  const unknown = Object.keys(given).find((field) => !KIND_FIELDS.has(field));
  if (unknown !== undefined) throw refuse(`the kind ${kind} has an unknown field "${unknown}" (${[...KIND_FIELDS].join(', ')})`);
  const { jsonText, holds, keyOf, anyKey } = given as BindingKind;
  for (const [field, value] of Object.entries({ jsonText, anyKey }))
    if (value !== undefined && typeof value !== 'boolean') throw refuse(`the kind ${kind}'s ${field} must be a boolean`);
  for (const [field, value] of Object.entries({ holds, keyOf }))
    if (value !== undefined && typeof value !== 'function') throw refuse(`the kind ${kind}'s ${field} must be a function`);
  if (keyOf && anyKey) throw refuse(`the kind ${kind} has keyOf or anyKey, not both`);
  return Object.freeze({ jsonText: jsonText === true, holds, keyOf, anyKey: anyKey === true });
}

/**
 * Declares a binding, for the whole process: call it once, at the top of the binding's module, and
 * keep what it returns (declaring that again changes nothing). A name declared before by another
 * declaration (the package's own among them), a kind or prefix outside the binding's name, or an
 * unknown field is a StoreConfigurationError.
 */
export function defineBinding(binding: IntegrationBinding): IntegrationBinding {
  if (typeof binding !== 'object' || binding === null) throw refuse('a binding is an object { name, kinds, sessionIdPrefixes? }');
  const earlier = declared.get((binding as { name?: unknown }).name as string);
  if (earlier && (earlier.frozen === binding || earlier.given === binding)) return earlier.frozen;
  const unknown = Object.keys(binding).find((field) => !BINDING_FIELDS.has(field));
  if (unknown !== undefined) throw refuse(`a binding has an unknown field "${unknown}"`);
  const { name, kinds, sessionIdPrefixes = [] } = binding;
  if (typeof name !== 'string' || !NAME.test(name))
    throw refuse(`a binding's name must be lower-case letters, digits and "-" (at most 64), got ${JSON.stringify(name)}`);
  if (earlier) throw refuse(`the binding "${name}" is declared already: declare it once, in its own module (and install one copy of the package)`);
  if (typeof kinds !== 'object' || kinds === null) throw refuse(`the binding "${name}" must declare its kinds`);
  if (!Array.isArray(sessionIdPrefixes)) throw refuse(`the binding "${name}"'s sessionIdPrefixes must be an array`);
  const ownKinds = Object.fromEntries(Object.entries(kinds).map(([kind, given]) => [kind, kindOf(name, kind, given)]));
  const prefixes = sessionIdPrefixes.map((prefix: unknown) => {
    if (typeof prefix !== 'string' || !/^[a-z0-9_.:-]+:$/.test(prefix) || !(prefix.startsWith(`${name}:`) || prefix.startsWith(`${name}.`)))
      throw refuse(`the binding "${name}"'s session id prefix ${JSON.stringify(prefix)} must be "${name}:" or "${name}.<what>:" (lower case)`);
    return prefix;
  });
  const frozen: IntegrationBinding = Object.freeze({ name, kinds: Object.freeze(ownKinds), sessionIdPrefixes: Object.freeze(prefixes) });
  declared.set(name, { given: binding, frozen });
  return frozen;
}

/** The package's own, declared before anything else can take their names. */
export const PACKAGE_BINDINGS = {
  /** The OpenAI Agents sessions' (`openai-agents`): their items, history events and applied operations. */
  openaiAgents: defineBinding(OPENAI_AGENTS),
  /** The Claude Agent SDK session store's (`claude-agent-sdk`): its transcripts' entries, and the prefix of its sessions' ids. */
  claudeAgentSdk: defineBinding(CLAUDE_AGENT_SDK),
  /** LangGraph's checkpointer's (`langgraph`): no kinds, as its rows are tables of its own; declared so that no one else takes the name. */
  langgraph: defineBinding(LANGGRAPH),
};

/**
 * The binding whose namespace an event type is in, if any. Case aside: a database whose collation
 * ignores case (a schema pushed without the migrations' binary collation) would make them one.
 */
export function bindingOfKind(type: string): string | undefined {
  const dot = type.indexOf('.');
  const name = dot < 1 ? undefined : type.slice(0, dot).toLowerCase();
  return name !== undefined && declared.has(name) ? name : undefined;
}

/** What a declared kind holds; undefined for a type no declared binding writes. */
export function declaredKind(type: string): BindingKind | undefined {
  const dot = type.indexOf('.');
  const kinds = dot < 1 ? undefined : declared.get(type.slice(0, dot))?.frozen.kinds;
  return kinds && Object.hasOwn(kinds, type) ? kinds[type] : undefined;
}

/** The binding that makes the sessions an id belongs to, by its prefix (case aside, see bindingOfKind), if any. */
export function bindingOfSessionId(id: string): { binding: string; prefix: string } | undefined {
  const lower = id.toLowerCase();
  for (const { frozen } of declared.values()) {
    const prefix = frozen.sessionIdPrefixes?.find((each) => lower.startsWith(each));
    if (prefix !== undefined) return { binding: frozen.name, prefix };
  }
  return undefined;
}

/**
 * The id of a session a store writes: an id, not one of those a framework binding gives the
 * sessions it makes itself (its declared prefixes, see defineBinding), which only it writes.
 * Reading and deleting such a session through the stores stays open.
 */
export function sessionIdOf(value: unknown, name: string): string {
  const id = idOf(value, name);
  const owner = bindingOfSessionId(id);
  if (owner !== undefined)
    throw new StoreValidationError(`${name} starts with "${owner.prefix}", which the ${owner.binding} binding keeps for its own sessions`);
  return id;
}

/** `call()`, a binding's own function: what it throws is a StoreValidationError naming it (its error the cause). */
function bindingCall<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw new StoreValidationError(`${what} failed: ${messageOf(error)}`, { cause: error });
  }
}

/** What a thrown value says, read without trusting it (its message may be a getter that throws, or no text). */
function messageOf(error: unknown): string {
  try {
    const message = (error as Error | undefined)?.message;
    return typeof message === 'string' ? message : 'it threw';
  } catch {
    return 'it threw';
  }
}

/** Whether `value`, as the store keeps it, is what an event of `kind` holds: a StoreValidationError when it is not. */
export function checkHolds(type: string, kind: BindingKind, value: unknown, name: string): void {
  if (kind.holds && bindingCall(`the ${type} kind's holds`, () => kind.holds!(value)) !== true)
    throw new StoreValidationError(`${name} is not what a ${type} event holds`);
}

/**
 * The key an event of `kind` holding `value` has, `given` the caller's (undefined: none said): the
 * binding's keyOf, which `given` must be when said; `given` for an anyKey kind; none otherwise,
 * where a key given is a StoreValidationError.
 */
export function keyFor(type: string, kind: BindingKind, value: unknown, given: string | null | undefined, name: string): string | null {
  if (kind.anyKey) return given ?? null;
  if (!kind.keyOf) {
    if (given !== undefined && given !== null) throw new StoreValidationError(`${name}: a ${type} event has no key`);
    return null;
  }
  const key = bindingCall(`the ${type} kind's keyOf`, () => kind.keyOf!(value));
  if (key !== null) idOf(key, `the key the ${type} kind's keyOf gave`);
  if (given !== undefined && given !== key)
    throw new StoreValidationError(`${name} is not the key its binding gives a ${type} event${key === null ? ': it gives none' : ''}`);
  return key;
}
