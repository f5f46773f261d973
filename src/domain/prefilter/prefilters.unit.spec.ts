import { FieldReader } from '../shared/fields.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { BaselineState } from './baseline.js';
import type { PrefilterContext, PrefilterSpec } from './prefilter.js';
import { PREFILTERS, runPrefilters, validatePrefilter } from './registry.js';

const unchanged: PrefilterSpec = {
  id: 'unchanged',
  version: 1,
  resourcePointer: '/resource/id',
  digestPointer: '/resource/etag',
};
const relevant: PrefilterSpec = { id: 'relevant', version: 1, pointer: '/kind', in: ['push', 'tag'] };
const office: PrefilterSpec = {
  id: 'window',
  version: 1,
  timezone: 'Europe/Berlin',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  from: '09:00',
  until: '17:00',
};
const night: PrefilterSpec = {
  id: 'window',
  version: 1,
  timezone: 'Europe/Berlin',
  days: ['fri'],
  from: '22:00',
  until: '06:00',
};

const baseline = (digest: string): BaselineState => ({ digest, occurrenceId: 'o-0', triggerRevision: 1 });
const context = (input: unknown, over: Partial<PrefilterContext> = {}): PrefilterContext => ({
  occurrenceId: 'o-9',
  input,
  // Monday 2026-03-02 10:30 in Berlin (CET, +01:00)
  acceptedAt: '2026-03-02T09:30:00.000Z',
  triggerRevision: 3,
  baselines: new Map([[canonicalJson('api'), null]]),
  ...over,
});
const run = (specs: PrefilterSpec[], input: unknown, over: Partial<PrefilterContext> = {}) =>
  runPrefilters(specs, context(input, over));
const seen = (digest: string) => ({ baselines: new Map([[canonicalJson('api'), baseline(digest)]]) });
const item = { resource: { id: 'api', etag: 'e-2' }, kind: 'push' };

describe('AD-4 prefilters', () => {
  it('are a registry of versioned filters', () =>
    expect([...PREFILTERS.keys()]).toEqual(['unchanged@1', 'relevant@1', 'window@1']));

  describe('unchanged@1', () => {
    it('given no baseline yet (first sighting), then it passes, recorded with baseline: null', () =>
      expect(run([unchanged], item)).toEqual({
        outcome: 'pass',
        evidence: [
          {
            filter: 'unchanged',
            version: 1,
            triggerRevision: 3,
            resource: 'api',
            digest: 'e-2',
            baseline: null,
            index: 0,
          },
        ],
      }));
    it('given the same digest as the last admitted one, then it terminates with unchanged, pinning the baseline', () =>
      expect(run([unchanged], item, seen('e-2'))).toEqual({
        outcome: 'terminate',
        reason: 'unchanged',
        evidence: {
          filter: 'unchanged',
          version: 1,
          triggerRevision: 3,
          resource: 'api',
          digest: 'e-2',
          baseline: { digest: 'e-2', occurrenceId: 'o-0', triggerRevision: 1 },
          index: 0,
        },
      }));
    it('given another digest, then it passes with the baseline it compared with', () =>
      expect(run([unchanged], item, seen('e-1'))).toMatchObject({
        outcome: 'pass',
        evidence: [{ baseline: { digest: 'e-1', occurrenceId: 'o-0' } }],
      }));
    describe('hostile: a missing digest is never "unchanged"', () => {
      it.each([
        ['missing', { resource: { id: 'api' } }],
        ['null', { resource: { id: 'api', etag: null } }],
        ['a number', { resource: { id: 'api', etag: 7 } }],
        ['empty', { resource: { id: 'api', etag: '' } }],
        ['oversized', { resource: { id: 'api', etag: 'x'.repeat(1025) } }],
      ])('given a digest that is %s, even with a baseline, then it is inconclusive', (_, input) =>
        expect(run([unchanged], input, seen('e-2'))).toMatchObject({
          outcome: 'inconclusive',
          reason: 'filter_inconclusive',
        }),
      );
    });
    it('given no usable resource, then it is inconclusive', () => {
      expect(run([unchanged], { resource: { etag: 'e' } })).toMatchObject({
        outcome: 'inconclusive',
        evidence: { problem: 'resource missing' },
      });
      expect(run([unchanged], { resource: { id: { x: 1 }, etag: 'e' } })).toMatchObject({ outcome: 'inconclusive' });
    });
    it('given a baseline its own admission left (a retry after a partial append), then it passes', () =>
      expect(run([unchanged], item, { ...seen('e-2'), occurrenceId: 'o-0' })).toMatchObject({
        outcome: 'pass',
        evidence: [{ retry: true }],
      }));
    it('given a baseline that was not read with the decision, then it is inconclusive, never a first sighting', () =>
      expect(run([unchanged], item, { baselines: new Map() })).toMatchObject({
        outcome: 'inconclusive',
        evidence: { problem: 'baseline not read' },
      }));
  });

  describe('relevant@1', () => {
    it('passes a listed value and terminates an unlisted one with irrelevant', () => {
      expect(run([relevant], { kind: 'tag' })).toMatchObject({ outcome: 'pass' });
      expect(run([relevant], { kind: 'issue' })).toEqual({
        outcome: 'terminate',
        reason: 'irrelevant',
        evidence: { filter: 'relevant', version: 1, triggerRevision: 3, pointer: '/kind', value: 'issue', index: 0 },
      });
    });
    it('a missing value is inconclusive, not irrelevant', () =>
      expect(run([relevant], { other: 1 })).toMatchObject({ outcome: 'inconclusive', reason: 'filter_inconclusive' }));
    it('evidence never copies a large value', () =>
      expect(run([relevant], { kind: { big: 'x'.repeat(1000) } })).toMatchObject({ evidence: { found: 'object' } }));
  });

  describe('window@1 reads the acceptance time on the zone wall clock', () => {
    it.each([
      ['Monday 10:30 Berlin', '2026-03-02T09:30:00.000Z', 'pass'],
      ['Monday 08:59 Berlin', '2026-03-02T07:59:00.000Z', 'terminate'],
      ['Monday 17:00 Berlin (until is exclusive)', '2026-03-02T16:00:00.000Z', 'terminate'],
      ['Saturday 10:30 Berlin', '2026-03-07T09:30:00.000Z', 'terminate'],
      ['Monday 09:00 Berlin in summer time (+02:00)', '2026-06-01T07:00:00.000Z', 'pass'],
    ])('%s → %s', (_, acceptedAt, outcome) => expect(run([office], {}, { acceptedAt }).outcome).toBe(outcome));
    it('an overnight window belongs to the day it starts on', () => {
      expect(run([night], {}, { acceptedAt: '2026-03-06T22:30:00.000Z' }).outcome).toBe('pass'); // Fri 23:30
      expect(run([night], {}, { acceptedAt: '2026-03-07T04:00:00.000Z' }).outcome).toBe('pass'); // Sat 05:00
      expect(run([night], {}, { acceptedAt: '2026-03-07T22:30:00.000Z' }).outcome).toBe('terminate'); // Sat 23:30
    });
    it('records the time, the zone and the local reading as evidence', () =>
      expect(run([office], {}, { acceptedAt: '2026-03-07T09:30:00.000Z' })).toEqual({
        outcome: 'terminate',
        reason: 'outside_window',
        evidence: {
          filter: 'window',
          version: 1,
          triggerRevision: 3,
          at: '2026-03-07T09:30:00.000Z',
          timezone: 'Europe/Berlin',
          local: '2026-03-07T10:30:00+01:00',
          day: 'sat',
          index: 0,
        },
      }));
    it('an unreadable time is inconclusive', () =>
      expect(run([office], {}, { acceptedAt: 'not a time' }).outcome).toBe('inconclusive'));
  });

  describe('several filters', () => {
    it('the first that terminates or is inconclusive decides; passing, each one records what it found', () => {
      expect(run([relevant, unchanged], { ...item, kind: 'issue' })).toMatchObject({
        reason: 'irrelevant',
        evidence: { index: 0 },
      });
      expect(run([relevant, unchanged], item, seen('e-2'))).toMatchObject({
        reason: 'unchanged',
        evidence: { index: 1 },
      });
      expect(run([relevant, unchanged, office], item)).toMatchObject({
        outcome: 'pass',
        evidence: [{ index: 0 }, { index: 1 }, { index: 2 }],
      });
    });
    it('a filter this deployment does not know is inconclusive, never a pass', () =>
      expect(run([{ id: 'sentiment', version: 2 }], item)).toMatchObject({
        outcome: 'inconclusive',
        evidence: { problem: 'unknown filter' },
      }));
  });

  describe('validation (422 invalid_definition with pointers)', () => {
    const pointers = (raw: unknown) => {
      const read = new FieldReader();
      validatePrefilter(read, raw, '/prefilters/0');
      return read.errors.map((e) => e.pointer);
    };
    it('accepts the three filters as api.md states them', () => {
      for (const spec of [unchanged, relevant, office, night]) expect(pointers(spec)).toEqual([]);
    });
    it('refuses unknown filters, versions and parameters', () => {
      expect(pointers({ id: 'unchanged', version: 2, resourcePointer: '/a', digestPointer: '/b' })).toEqual([
        '/prefilters/0/id',
      ]);
      expect(pointers({ id: 'regex', version: 1 })).toEqual(['/prefilters/0/id']);
      expect(pointers({ ...unchanged, baselinePointer: '/x' })).toEqual(['/prefilters/0/baselinePointer']);
      expect(pointers({ id: 'unchanged', version: 1, resourcePointer: 'a' })).toEqual([
        '/prefilters/0/resourcePointer',
        '/prefilters/0/digestPointer',
      ]);
    });
    it('checks relevant lists and window fields', () => {
      expect(pointers({ ...relevant, in: [] })).toEqual(['/prefilters/0/in']);
      expect(pointers({ ...relevant, in: Array.from({ length: 257 }, (_, i) => i) })).toEqual(['/prefilters/0/in']);
      expect(
        pointers({ ...office, timezone: 'Mars/Olympus', days: ['mon', 'mon'], from: '9:00', until: '25:00' }),
      ).toEqual(['/prefilters/0/timezone', '/prefilters/0/days', '/prefilters/0/from', '/prefilters/0/until']);
      expect(pointers({ ...office, from: '09:00', until: '09:00' })).toEqual(['/prefilters/0/until']);
      expect(pointers({ ...office, until: '24:00' })).toEqual([]);
    });
  });
});
