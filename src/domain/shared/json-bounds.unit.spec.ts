import { checkJsonBounds, isPrintableName } from './json-bounds.js';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('checkJsonBounds (WH-1, SEC-4 hostile JSON is refused before it is stored)', () => {
  it('accepts ordinary documents, including paired surrogates and nesting up to the limit', () => {
    expect(checkJsonBounds({ a: [1, -2.5, 'é😀', null, true, { b: 'x' }] })).toBeNull();
    expect(checkJsonBounds(nested(64))).toBeNull();
  });
  it('refuses nesting past the limit, 100,000 deep without exhausting the stack', () => {
    expect(checkJsonBounds(nested(65))?.message).toMatch(/deeper than 64/);
    expect(checkJsonBounds(nested(100_000))?.message).toMatch(/deeper than 64/);
    expect(checkJsonBounds(nested(11), 10)?.message).toMatch(/deeper than 10/);
    const pointer = checkJsonBounds(nested(100_000))!.pointer;
    expect(pointer.length).toBeLessThan(100);
  });
  it('refuses 1e999 and -1e999, which JSON.parse reads as infinities, with a pointer', () => {
    expect(checkJsonBounds(JSON.parse('{"a":{"n":1e999}}'))).toEqual({
      pointer: '/a/n',
      message: 'numbers must be finite',
    });
    expect(checkJsonBounds(JSON.parse('[0,-1e999]'))?.pointer).toBe('/1');
  });
  it('refuses U+0000 and unpaired surrogates in strings and member names', () => {
    expect(checkJsonBounds(JSON.parse('{"s":"a\\u0000b"}'))?.pointer).toBe('/s');
    expect(checkJsonBounds(JSON.parse('{"s":["\\ud800"]}'))?.pointer).toBe('/s/0');
    expect(checkJsonBounds(JSON.parse('"x\\udc00"'))?.message).toMatch(/surrogate/);
    expect(checkJsonBounds(JSON.parse('{"k\\u0000":1}'))?.message).toMatch(/member name/);
    expect(checkJsonBounds(JSON.parse('{"a/b~":{"\\ud800":1}}'))?.pointer).toBe('/a~1b~0/\ud800');
  });
});

describe('isPrintableName (SEC-4 ids and token claims)', () => {
  it('accepts names, including non-ASCII ones, and refuses control characters and half surrogate pairs', () => {
    expect(['tenant-a', 'équipe', 'svc😀', 'a b'].every(isPrintableName)).toBe(true);
    expect(['a\u0000', '\u0000', 'a\nb', 'a\u007fb', 'x\ud800', '\udc00'].some(isPrintableName)).toBe(false);
  });
});
