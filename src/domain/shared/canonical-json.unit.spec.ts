import fc from 'fast-check';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson (AU-2, SEC-3 fingerprints)', () => {
  it('sorts keys recursively and writes compact JSON', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
  it('drops undefined members so optional fields do not change the bytes', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
  it('gives equal output for equal values written with different key order', () => {
    expect(canonicalJson(JSON.parse('{"x":1,"y":"\\u00e9"}'))).toBe(canonicalJson({ y: 'é', x: 1 }));
  });
  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });
});

describe('canonicalJson writes what JSON.stringify would, keys sorted (property)', () => {
  /** The definition, spelt out: every key and leaf written by JSON.stringify, keys in code-unit order. */
  const reference = (value: unknown): string => {
    if (Array.isArray(value))
      return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
    return `{${members.join(',')}}`;
  };
  const anyText = fc.string({ unit: 'binary', maxLength: 12 });

  it('for strings of any code units (quotes, controls, lone and paired surrogates, U+2028) as values and keys', () => {
    fc.assert(
      fc.property(fc.dictionary(anyText, anyText, { maxKeys: 4 }), fc.array(anyText, { maxLength: 3 }), (o, a) => {
        expect(canonicalJson(o)).toBe(reference(o));
        expect(canonicalJson(a)).toBe(reference(a));
      }),
      { numRuns: 3000 },
    );
  });

  it('for nested JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => expect(canonicalJson(value)).toBe(reference(value))),
      { numRuns: 1000 },
    );
  });
});
