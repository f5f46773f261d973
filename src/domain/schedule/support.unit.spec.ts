import { parseRfc3339 } from './rfc3339.js';
import { compareTzdata, describeEngine, ENGINE_VERSIONS } from './tzdata.js';
import { offsetAt, renderLocal, resolveLocal } from './zone.js';

describe('SC-1 zone resolution', () => {
  it('reads offsets for an instant, independent of the host zone', () => {
    expect(offsetAt('Europe/Berlin', Date.UTC(2026, 0, 15))).toBe(3_600_000);
    expect(offsetAt('Europe/Berlin', Date.UTC(2026, 6, 15))).toBe(7_200_000);
    expect(offsetAt('America/St_Johns', Date.UTC(2026, 0, 15))).toBe(-12_600_000);
  });

  it('classifies gap, overlap and ordinary wall times', () => {
    expect(resolveLocal('Europe/Berlin', Date.UTC(2026, 2, 29, 2, 30))).toMatchObject({
      kind: 'nonexistent',
      shifted: Date.UTC(2026, 2, 29, 1, 30),
    });
    expect(resolveLocal('Europe/Berlin', Date.UTC(2026, 9, 25, 2, 30))).toMatchObject({
      kind: 'ambiguous',
      earlier: Date.UTC(2026, 9, 25, 0, 30),
      later: Date.UTC(2026, 9, 25, 1, 30),
    });
    expect(resolveLocal('Europe/Berlin', Date.UTC(2026, 2, 29, 3, 0))).toMatchObject({
      kind: 'unique',
      utc: Date.UTC(2026, 2, 29, 1, 0),
    });
  });

  it('renders RFC 3339 with the zone offset and no fraction', () => {
    expect(renderLocal('UTC', Date.UTC(2026, 0, 1, 12, 0, 0, 999))).toBe('2026-01-01T12:00:00+00:00');
    expect(renderLocal('America/St_Johns', Date.UTC(2026, 0, 1, 12))).toBe('2026-01-01T08:30:00-03:30');
    expect(renderLocal('Pacific/Kiritimati', Date.UTC(2026, 0, 1, 12))).toBe('2026-01-02T02:00:00+14:00');
  });
});

describe('SC-1 RFC 3339 parsing', () => {
  it('parses offsets and fractions', () => {
    expect(parseRfc3339('2026-03-29T03:30:00+02:00')).toBe(Date.UTC(2026, 2, 29, 1, 30));
    expect(parseRfc3339('2026-03-29t01:30:00.1234z')).toBe(Date.UTC(2026, 2, 29, 1, 30, 0, 123));
  });

  it.each([
    '2026-03-29',
    '2026-03-29T01:30Z',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+24:00',
  ])('rejects %s', (text) => expect(parseRfc3339(text)).toBeNull());
});

describe('SC-1/SC-7 engine metadata and tz data drift', () => {
  it('lists the engines and describes them', () => {
    expect(ENGINE_VERSIONS).toEqual(['cron@1', 'interval@1']);
    expect(describeEngine('cron@1')).toMatchObject({ family: 'cron', version: 1, zoneDependentInstants: true });
    expect(describeEngine('interval@1')).toMatchObject({
      family: 'interval',
      version: 1,
      zoneDependentInstants: false,
    });
    expect(describeEngine('cron@2')).toBeNull();
  });

  it('reports drift between pinned and running tz data', () => {
    expect(compareTzdata('2025c', '2025c').drift).toBe(false);
    expect(compareTzdata('2025b', '2025c').drift).toBe(true);
    expect(compareTzdata(null, '2025c').drift).toBe(true);
  });
});
