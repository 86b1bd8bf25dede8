// The checkpointer decodes the stock serde's JSON itself when no object in it is
// one the serde revives (src/integrations/langgraph/stock-serde.ts): whatever the
// value, what it gives must be what the stock serde gives, prototypes included;
// and a serde of yours must be the one that decodes.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { dumpsFreshJson, loadStockJson, loadsStockJson } from '../../../src/integrations/langgraph/stock-serde.js';

const stock = new JsonPlusSerializer();
const encode = (text: string) => new TextEncoder().encode(text);

/** Values as a state holds them: encoded by the stock serde, then decoded both ways. */
const VALUES: [string, unknown][] = [
  [
    'a plain message list',
    [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', toolCalls: [{ id: 'c1', args: { q: 1.5, deep: [null, true, -0] } }] },
    ],
  ],
  ['text', 'You are a research assistant.'],
  ['a number', 42.25],
  ['null', null],
  ['an empty object', {}],
  ['text that spells a mark', { content: 'the key "lc": 1 and "__proto__" as text' }],
  ['undefined in an array and an object', { list: [1, undefined, 3], field: undefined, kept: 'x' }],
  ['a Set and a Map', { seen: new Set(['a', 'b']), counts: new Map([['a', 1]]) }],
  ['a RegExp, an Error and bytes', { pattern: /ab+c/gi, error: new Error('boom'), bytes: new Uint8Array([1, 2, 255]) }],
  ['LangChain messages', [new HumanMessage('hi'), new AIMessage('hello')]],
  ['a plain message beside a LangChain one', [{ role: 'user', content: 'hi' }, new AIMessage('hello')]],
  ['non-ASCII text', { content: 'grüße, 你好, 🙂' }],
];

describe.each(VALUES)('%s', (_name, value) => {
  test('decodes to what the stock serde gives', async () => {
    const [type, bytes] = await stock.dumpsTyped(value);
    expect(type).toBe('json');
    const expected = await stock.loadsTyped('json', bytes);
    const decoded = await loadStockJson(stock, bytes);
    expect(decoded).toStrictEqual(expected);
    // The bytes are read, never kept or changed.
    expect(await stock.loadsTyped('json', bytes)).toStrictEqual(expected);
  });
});

describe('JSON the stock serde did not write', () => {
  const cases: [string, string][] = [
    ['a mark with an escaped key', '{"l\\u0063":2,"type":"undefined"}'],
    ['a Set with an escaped key, deep down', '{"a":[{"b":{"\\u006cc":2,"type":"constructor","id":["Set"],"method":null,"args":[[1,2]],"kwargs":{}}}]}'],
    ['a __proto__ key', '{"__proto__":{"polluted":true},"x":1}'],
    ['an escaped __proto__ key', '{"\\u005f_proto__":{"polluted":true},"x":1}'],
    ['spaces around a mark', '{ "lc" : 2 , "type" : "undefined" }'],
    ['a byte order mark', '\ufeff{"x":1}'],
  ];
  test.each(cases)('%s: what the stock serde gives', async (_name, text) => {
    const expected = await stock.loadsTyped('json', encode(text));
    const decoded = await loadStockJson(stock, encode(text));
    expect(decoded).toStrictEqual(expected);
    if (typeof expected === 'object' && expected !== null) expect(Object.getPrototypeOf(decoded)).toStrictEqual(Object.getPrototypeOf(expected));
  });

  test('text that is not JSON: the stock serde’s error', async () => {
    await expect(loadStockJson(stock, encode('{"x":'))).rejects.toThrow(SyntaxError);
  });
});

describe('which serde is the stock one', () => {
  test('the stock serde, and a subclass that keeps its methods', () => {
    class Named extends JsonPlusSerializer {}
    for (const serde of [stock, new Named()]) {
      expect(dumpsFreshJson(serde)).toBe(true);
      expect(loadsStockJson(serde)).toBe(true);
    }
  });

  test('a serde that decodes or encodes its own way is not', () => {
    class OwnLoads extends JsonPlusSerializer {
      protected override async _loads(data: string): Promise<unknown> {
        return { decodedBy: 'me', data };
      }
    }
    class OwnDumps extends JsonPlusSerializer {
      protected override _dumps(): Uint8Array {
        return encode('{}');
      }
    }
    const patched = new JsonPlusSerializer();
    patched.loadsTyped = async () => 'patched';
    expect(loadsStockJson(new OwnLoads())).toBe(false);
    expect(loadsStockJson(patched)).toBe(false);
    expect(dumpsFreshJson(new OwnDumps())).toBe(false);
    expect(loadsStockJson({ loadsTyped: async () => null, dumpsTyped: async () => ['json', encode('1')] })).toBe(false);
  });

  test('a method replaced on the stock prototype (a patch of every serde) makes none of them the stock one', () => {
    const prototype = JsonPlusSerializer.prototype as unknown as Record<string, unknown>;
    const original = { _loads: prototype._loads, _dumps: prototype._dumps };
    prototype._loads = async (data: string) => ({ revivedBy: 'the patch', data });
    prototype._dumps = () => encode('{}');
    try {
      expect(loadsStockJson(new JsonPlusSerializer())).toBe(false);
      expect(dumpsFreshJson(new JsonPlusSerializer())).toBe(false);
    } finally {
      Object.assign(prototype, original);
    }
  });
});
