// What the checkpointer may assume of LangGraph's stock serde (JsonPlusSerializer),
// and only of it: a serde of yours, or one whose methods are replaced, gets none
// of these shortcuts.
// - Its dumpsTyped encodes a value anew each time: JSON bytes nobody else holds.
// - Its loadsTyped decodes JSON bytes to text and keeps nothing of them.
// - Its decoding is JSON.parse followed by an asynchronous walk over every
//   node, which rebuilds each object and turns the objects it marked when
//   encoding (undefined, Set, Map, Error, LangChain's messages and the rest) back
//   into what they were. Every such mark is an object with an "lc" key. A value
//   with none comes back from the walk as JSON.parse gave it, only rebuilt: its
//   JSON.parse is the value, decoded at a fraction of the cost.
// This reading of the walk is @langchain/langgraph-checkpoint 1.2's; a version
// that revived anything without an "lc" key would break it, and
// test/integrations/langgraph/stock-serde.test.ts compares the two on every kind
// of value the serde writes. (One difference stays: JSON nested some thousands
// deep, which the stock serde cannot write, decodes here where the stock walk
// runs out of stack.)
import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';

// The stock methods as this module found them: one replaced on the prototype later (a patch of everyone's
// serde) is a serde of yours, not the stock one.
const { dumpsTyped, _dumps, loadsTyped, _loads } = JsonPlusSerializer.prototype as unknown as Record<string, unknown>;
const STOCK = { dumpsTyped, _dumps, loadsTyped, _loads };
const method = (serde: object, name: string) => (serde as Record<string, unknown>)[name];

/** Whether `serde` encodes as the stock serde does, each value to new JSON bytes. */
export const dumpsFreshJson = (serde: object): boolean => method(serde, 'dumpsTyped') === STOCK.dumpsTyped && method(serde, '_dumps') === STOCK._dumps;

/** Whether `serde` decodes JSON bytes as the stock serde does (to text first, keeping nothing of them). */
export const loadsStockJson = (serde: object): boolean => method(serde, 'loadsTyped') === STOCK.loadsTyped && method(serde, '_loads') === STOCK._loads;

const decoder = new TextDecoder();

/**
 * What the stock serde's loadsTyped('json', bytes) gives, for a serde that `loadsStockJson`: JSON.parse's
 * value when no object in it carries a mark (an "lc" key) or a "__proto__" key (which the stock walk
 * assigns, setting the rebuilt object's prototype); otherwise the serde decodes the text. A mark is looked
 * for in the text first, where LangChain's messages show one at once, then in the parsed objects, where
 * an escaped key would hide it from the text.
 */
export async function loadStockJson(serde: SerializerProtocol, bytes: Uint8Array): Promise<unknown> {
  const text = decoder.decode(bytes);
  if (!text.includes('"lc"') && !text.includes('"__proto__"')) {
    const value: unknown = JSON.parse(text);
    if (isPlain(value)) return value;
  }
  return serde.loadsTyped('json', text);
}

function isPlain(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlain(item)) return false;
    return true;
  }
  if (Object.hasOwn(value, 'lc') || Object.hasOwn(value, '__proto__')) return false;
  for (const key in value) if (!isPlain((value as Record<string, unknown>)[key])) return false;
  return true;
}
