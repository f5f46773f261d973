import { asciiLower, indexHeaders, singleHeader, type HeaderInput } from './headers.js';

function read(input: HeaderInput, name: string) {
  const indexed = indexHeaders(input);
  if (!indexed.ok) return indexed;
  return singleHeader(indexed.index, name);
}

describe('WH-2 header access fails closed on duplicates (rawHeaders)', () => {
  it('reads a header case-insensitively and trims surrounding whitespace', () => {
    expect(read(['Webhook-ID', '  msg_1\t'], 'webhook-id')).toEqual({ ok: true, value: 'msg_1' });
    expect(read(['webhook-id', 'msg_1'], 'WEBHOOK-ID')).toEqual({ ok: true, value: 'msg_1' });
  });

  it('reports an absent header as null and an empty one as empty', () => {
    expect(read(['other', 'x'], 'webhook-id')).toEqual({ ok: true, value: null });
    expect(read(['webhook-id', ''], 'webhook-id')).toEqual({ ok: true, value: '' });
  });

  it('attack: a second copy appended after the legitimate one is a 400, not "first wins"', () => {
    expect(read(['webhook-signature', 'v1,good', 'webhook-signature', 'v1,evil'], 'webhook-signature')).toMatchObject({
      ok: false,
      status: 400,
      code: 'malformed_request',
    });
  });

  it('attack: the second copy differs only in case', () => {
    expect(read(['webhook-id', 'a', 'WEBHOOK-ID', 'b'], 'webhook-id')).toMatchObject({ code: 'malformed_request' });
  });

  it('attack: two identical copies are still two copies', () => {
    expect(read(['webhook-id', 'a', 'webhook-id', 'a'], 'webhook-id')).toMatchObject({ code: 'malformed_request' });
  });

  it('never echoes the header value in the detail', () => {
    const result = read(['webhook-id', 'secret-looking', 'webhook-id', 'x'], 'webhook-id');
    expect(JSON.stringify(result)).not.toContain('secret-looking');
  });

  it('rejects a flat list with a dangling name', () => {
    expect(indexHeaders(['webhook-id', 'a', 'webhook-signature'])).toMatchObject({ code: 'malformed_request' });
  });

  it('attack: KELVIN SIGN (U+212A) is not folded to "k", so it cannot pose as webhook-id', () => {
    expect('webhoo\u212a-id'.toLowerCase()).toBe('webhook-id');
    expect(asciiLower('webhoo\u212a-id')).not.toBe('webhook-id');
    expect(read(['webhook-id', 'real', 'webhoo\u212a-id', 'forged'], 'webhook-id')).toEqual({
      ok: true,
      value: 'real',
    });
  });

  it('a comma inside a single rawHeaders value is one value (rawHeaders shows every copy)', () => {
    expect(read(['webhook-signature', 'v1,a, v1,b'], 'webhook-signature')).toEqual({ ok: true, value: 'v1,a, v1,b' });
  });
});

describe('WH-2 header access fails closed on duplicates (IncomingHttpHeaders record)', () => {
  it('counts an array value as duplicates', () => {
    expect(read({ headers: { 'webhook-id': ['a', 'b'] } }, 'webhook-id')).toMatchObject({ code: 'malformed_request' });
  });

  it('counts a ", "-joined value as duplicates (how Node merges repeated unknown headers)', () => {
    expect(read({ headers: { 'webhook-signature': 'v1,good, v1,evil' } }, 'webhook-signature')).toMatchObject({
      code: 'malformed_request',
    });
  });

  it('keeps a legitimate "v1,<sig> v1,<sig>" list, whose commas are not followed by whitespace', () => {
    expect(read({ headers: { 'webhook-signature': 'v1,a v1,b' } }, 'webhook-signature')).toEqual({
      ok: true,
      value: 'v1,a v1,b',
    });
  });

  it('counts two record keys differing in case as duplicates', () => {
    expect(read({ headers: { 'webhook-id': 'a', 'Webhook-Id': 'b' } }, 'webhook-id')).toMatchObject({
      code: 'malformed_request',
    });
  });

  it('prefers rawHeaders when both are given: Node drops later copies of some headers from the record', () => {
    const input = {
      headers: { 'content-type': 'application/json' },
      rawHeaders: ['Content-Type', 'application/json', 'Content-Type', 'text/plain'],
    };
    expect(read(input, 'content-type')).toMatchObject({ code: 'malformed_request' });
  });

  it('ignores undefined record members', () => {
    expect(read({ headers: { 'webhook-id': undefined } }, 'webhook-id')).toEqual({ ok: true, value: null });
  });
});
