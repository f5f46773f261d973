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
