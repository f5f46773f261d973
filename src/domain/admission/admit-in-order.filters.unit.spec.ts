import { executionIdFor } from '../execution/execution.js';
import type { OccurrenceAdmitted } from '../occurrence/occurrence-events.js';
import { definition, manualObserved } from '../occurrence/occurrence.fixtures.js';
import { admitInOrder, type MissionCounters, type ObservedState } from './admit-in-order.js';
import { type BudgetEvent } from './budget.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { baselineStream } from '../shared/ids.js';
import {
  backlog,
  spec,
  definedTrigger,
  view,
  pending,
  idOf,
  counted,
  admitted,
  outcome,
} from './admit-in-order.fixtures.js';

describe('admitting a Mission backlog in acceptance order: guards and prefilters decide first (BA-2, AD-4)', () => {
  describe('BA-2 when the Trigger guards its input', () => {
    const guarded = {
      ...definedTrigger,
      definition: { ...definedTrigger.definition, guard: { pointer: '/n', gte: 2 } },
    };
    const withInput = (key: string, input: unknown): ObservedState => ({
      ...pending(key),
      occurrence: { ...manualObserved(key), input },
    });
    it('suppresses the false ones and blocks the faults before any counter: no budget unit, no slot, no execution', () => {
      const keys = ['k-1', 'k-2', 'k-3', 'k-4'];
      const occurrences = [
        withInput('k-1', { n: 1 }),
        withInput('k-2', { n: 2 }),
        withInput('k-3', { n: '3' }),
        withInput('k-4', { other: true }),
      ];
      const result = spec
        .given(counted(9))
        .when({ occurrences, view: view({ triggers: new Map([['t-1', guarded]]) }) })
        .result();
      expect(outcome(result, keys)).toEqual([
        'budget counts k-2',
        'slots taken (1) on stripe 0, 1 there',
        'suppressed k-1: guard_false',
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
        'blocked k-3: guard_fault',
        'suppressed k-4: guard_false',
      ]);
      const steps = admitInOrder(
        occurrences,
        view({ triggers: new Map([['t-1', guarded]]) }),
        backlog.initialState,
      ).steps;
      expect(steps.map((step) => step.executionId)).toEqual([null, executionIdFor(idOf('k-2')), null, null]);
    });
  });

  describe('AD-4 when the Trigger filters unchanged resources', () => {
    const unchanged = {
      ...definedTrigger,
      definition: {
        ...definedTrigger.definition,
        prefilters: [{ id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/etag' }],
      },
    };
    const apiBaseline = baselineStream('acme', 't-1', canonicalJson('api'));
    const item = (key: string, etag: string | null, resourceRefs = ['repo:acme/api']): ObservedState => ({
      ...pending(key),
      occurrence: {
        ...manualObserved(key),
        input: { resource: { id: 'api' }, ...(etag ? { etag } : {}) },
        resourceRefs,
      },
    });
    const decideBatch = (occurrences: ObservedState[], given: BudgetEvent[] = []) => {
      const read: MissionCounters = {
        ...given.reduce(backlog.evolve, backlog.initialState),
        baselines: new Map([[apiBaseline, null]]),
      };
      const result = admitInOrder(occurrences, view({ triggers: new Map([['t-1', unchanged]]) }), read);
      return [...[...result.baselines.values()].flat(), ...result.steps.flatMap((s) => s.decision)];
    };
    const keys = ['k-1', 'k-2', 'k-3', 'k-4'];

    it('the second of one resource in a batch compares with the first, admitted just before it', () =>
      expect(
        outcome(decideBatch([item('k-1', 'e1'), item('k-2', 'e1'), item('k-3', 'e2'), item('k-4', 'e2')]), keys),
      ).toEqual([
        'baseline of api is k-1 (e1)',
        'baseline of api is k-3 (e2)',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'suppressed k-2: unchanged',
        `admitted k-3 as ${executionIdFor(idOf('k-3'))}`,
        'suppressed k-4: unchanged',
      ]));
    it('only an admitted Occurrence is a baseline: after a blocked first one, the next is still a first sighting', () =>
      expect(outcome(decideBatch([item('k-1', 'e1', ['repo:other/x']), item('k-2', 'e1')]), keys)).toEqual([
        'baseline of api is k-2 (e1)',
        'blocked k-1: scope_violation',
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
      ]));
    it('a budget refusal after the filter passed leaves the baseline where it was', () =>
      expect(outcome(decideBatch([item('k-1', 'e1'), item('k-2', 'e1')], counted(10)), keys)).toEqual([
        'blocked k-1: budget_exhausted',
        'blocked k-2: budget_exhausted',
      ]));
    it('hostile: a missing digest is filter_inconclusive, never unchanged, and records nothing', () =>
      expect(outcome(decideBatch([item('k-1', 'e1'), item('k-2', null)]), keys)).toEqual([
        'baseline of api is k-1 (e1)',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: filter_inconclusive',
      ]));
    it('the first sighting is recorded on the admission with baseline: null', () => {
      const [admission] = decideBatch([item('k-1', 'e1')]).filter((e) => e.type === 'OccurrenceAdmitted');
      expect(admission).toMatchObject({
        data: { prefilters: [{ filter: 'unchanged', version: 1, resource: 'api', digest: 'e1', baseline: null }] },
      });
    });
  });
});
