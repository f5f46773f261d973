import { classifyContentType } from './content-type.js';

const ce = ['ce-specversion', '1.0', 'ce-id', 'evt-1', 'ce-type', 'com.example.paid', 'ce-source', '/billing'];
const malformed = { ok: false, status: 400, code: 'malformed_request' };

describe('WH-2 content type: plain JSON', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset="UTF-8"',
    'application/json ;  charset=UTF-8',
  ])('%j → json', (value) => {
    expect(classifyContentType(['Content-Type', value])).toEqual({ ok: true, format: 'json' });
  });

  it.each([
    ['missing', []],
    ['empty', ['content-type', '']],
    ['text/plain', ['content-type', 'text/plain']],
    ['a look-alike subtype', ['content-type', 'application/jsonp']],
    ['Cyrillic "ѕ" in json', ['content-type', 'application/j\u0455on']],
    [
      'charset=iso-8859-1 (the verified bytes would be read as other text)',
      ['content-type', 'application/json; charset=iso-8859-1'],
    ],
    ['charset=utf-16', ['content-type', 'application/json; charset=utf-16']],
    ['an extra parameter', ['content-type', 'application/json; charset=utf-8; profile=x']],
    ['charset given twice', ['content-type', 'application/json; charset=utf-8; charset=latin1']],
    ['a trailing ";"', ['content-type', 'application/json;']],
    ['no subtype', ['content-type', 'application']],
  ])('%s → 400', (_label, rawHeaders) => {
    expect(classifyContentType(rawHeaders)).toMatchObject(malformed);
  });
});

describe('WH-2 ambiguous content types fail closed', () => {
  it.each([
    ['a list value', ['content-type', 'application/json, text/plain']],
    ['two Content-Type headers', ['content-type', 'application/json', 'Content-Type', 'text/plain']],
    ['two identical Content-Type headers', ['content-type', 'application/json', 'Content-Type', 'application/json']],
    ['a quoted comma smuggling a second type', ['content-type', 'application/json; charset="utf-8, text/html"']],
  ])('attack: %s → 400', (_label, rawHeaders) => {
    expect(classifyContentType(rawHeaders)).toMatchObject(malformed);
  });

  it('attack: an array or joined value in a parsed header record → 400', () => {
    expect(classifyContentType({ headers: { 'content-type': ['application/json', 'text/plain'] } })).toMatchObject(
      malformed,
    );
    expect(classifyContentType({ headers: { 'content-type': 'application/json, text/plain' } })).toMatchObject(
      malformed,
    );
    expect(classifyContentType({ headers: { 'content-type': 'application/json' } })).toEqual({
      ok: true,
      format: 'json',
    });
  });
});

describe('WH-10 CloudEvents structured and binary mode', () => {
  it('application/cloudevents+json → structured (ce-* headers alongside it are ignored)', () => {
    expect(classifyContentType(['content-type', 'application/cloudevents+json; charset=utf-8'])).toEqual({
      ok: true,
      format: 'cloudevents-structured',
    });
    expect(classifyContentType(['content-type', 'application/cloudevents+json', ...ce])).toMatchObject({
      format: 'cloudevents-structured',
    });
  });

  it('batch mode is not accepted', () => {
    expect(classifyContentType(['content-type', 'application/cloudevents-batch+json'])).toMatchObject(malformed);
  });

  it('application/json with all four required ce-* headers → binary', () => {
    expect(
      classifyContentType([
        'content-type',
        'application/json',
        ...ce.map((v, i) => (i % 2 === 0 ? v.toUpperCase() : v)),
      ]),
    ).toEqual({
      ok: true,
      format: 'cloudevents-binary',
    });
  });

  it.each(['ce-specversion', 'ce-id', 'ce-type', 'ce-source'])(
    'a binary event without %s is neither JSON nor CloudEvent → 400',
    (missing) => {
      const rawHeaders = ['content-type', 'application/json'];
      for (let i = 0; i < ce.length; i += 2)
        if (ce[i] !== missing) rawHeaders.push(ce[i] as string, ce[i + 1] as string);
      expect(classifyContentType(rawHeaders)).toMatchObject(malformed);
    },
  );

  it.each([
    ['a duplicated ce-id', [...ce, 'ce-id', 'evt-2']],
    ['an empty ce-source', ce.map((v, i) => (ce[i - 1] === 'ce-source' ? '' : v))],
    ['ce-specversion 0.3', ce.map((v, i) => (ce[i - 1] === 'ce-specversion' ? '0.3' : v))],
  ])('attack: %s → 400', (_label, attributes) => {
    expect(classifyContentType(['content-type', 'application/json', ...attributes])).toMatchObject(malformed);
  });

  it('extension ce-* headers alone do not switch a JSON delivery to binary mode', () => {
    expect(classifyContentType(['content-type', 'application/json', 'ce-missionid', 'm-evil'])).toEqual({
      ok: true,
      format: 'json',
    });
  });
});
