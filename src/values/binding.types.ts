// What a framework binding declares of itself (see bindings.ts, defineBinding).

/** What an event of a binding's kind holds, and under which key. */
export interface BindingKind {
  /**
   * Kept as its JSON text alone: any JSON a round trip gives back equal (a `"__proto__"` key, a lone
   * surrogate), and nothing but JSON. Otherwise the value is kept as the store keeps a message's: bytes,
   * dates and URLs too.
   */
  readonly jsonText?: boolean;
  /** Whether `value` (as the store keeps it) is what an event of the kind holds. Unset: any value. */
  readonly holds?: (value: unknown) => boolean;
  /**
   * The key the binding gives an event of the kind holding `value` (null: none): the log refuses
   * another, and an import gives it to a line without one.
   */
  readonly keyOf?: (value: unknown) => string | null;
  /** Any key the binding gives, or none (not with keyOf). Unset, with no keyOf: the kind's events have no key. */
  readonly anyKey?: boolean;
}

/** A binding's declaration. */
export interface IntegrationBinding {
  /** Lower-case letters, digits and `-`: the namespace of its kinds and session ids. */
  readonly name: string;
  /** Its kinds, each `<name>.<what>`, and what each holds. */
  readonly kinds: Readonly<Record<string, BindingKind>>;
  /** The prefixes of the ids of the sessions it makes itself, each `<name>:` or `<name>.<what>:` and on. */
  readonly sessionIdPrefixes?: readonly string[];
}
