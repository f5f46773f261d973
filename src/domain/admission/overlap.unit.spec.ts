import { executionIdFor } from '../execution/execution.js';
import type { ExecutionRequest, OccurrenceAdmitted, OccurrenceBlocked } from '../occurrence/occurrence-events.js';
import { definition, manualObserved, mission, NOW, trigger } from '../occurrence/occurrence.fixtures.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { type AdmissionView, admitInOrder, type MissionCounters, type ObservedState } from './admit-in-order.js';
import { budgetWindowStart, initialBudgetState } from './budget.js';
import { initialMissionSlots } from './slot-stripes.js';
import { type OverlapCommand, overlapDecider, type OverlapEvent, type OverlapState } from './overlap.js';

const spec = deciderSpec(overlapDecider);
const ids = { tenant: 'acme', triggerId: 't-1' };
const start = (executionId: string): OverlapCommand => ({
  type: 'StartTriggerExecution',
  ...ids,
  executionId,
  at: NOW,
});
const end = (executionId: string): OverlapCommand => ({
  type: 'EndTriggerExecution',
  ...ids,
  executionId,
  why: 'completed',
  at: NOW,
});
const started = (executionId: string): OverlapEvent => ({
  type: 'TriggerExecutionStarted',
  data: { ...ids, executionId, running: executionId, at: NOW },
});
const ended = (executionId: string): OverlapEvent => ({
  type: 'TriggerExecutionEnded',
  data: { ...ids, executionId, running: null, why: 'completed', at: NOW },
});

describe('BA-3 overlap marker of a Trigger that skips overlaps', () => {
  it('starts an execution when none runs', () =>
    spec
      .given()
      .when(start('x-1'))
      .then([started('x-1')]));
  it('refuses a second one while the first is not terminal', () =>
    spec
      .given([started('x-1')])
      .when(start('x-2'))
      .thenRejects('overlap_skip', { detail: 'execution x-1 is not terminal' }));
  it('starts the next once the running one ended', () =>
    spec
      .given([started('x-1'), ended('x-1')])
      .when(start('x-2'))
      .then([started('x-2')]));
  it('an admission retried after a crash finds its own marker and takes it again as nothing new', () =>
    spec
      .given([started('x-1')])
      .when(start('x-1'))
      .then([]));
  it('only the running execution ends the marker', () => {
    spec
      .given([started('x-1')])
      .when(end('x-1'))
      .then([ended('x-1')]);
    spec
      .given([started('x-2')])
      .when(end('x-1'))
      .then([]);
    spec.given().when(end('x-1')).then([]);
  });
});

const LIMITS = { maxExecutionsPerHour: 10, maxConcurrent: 5 };
const constraints = { ...definition().constraints, ...LIMITS };
const skipping = trigger({}, { type: 'manual', source: null, constraints, overlap: 'skip' });
const allowing = trigger({}, { type: 'manual', source: null, constraints });
const view = (t = skipping): AdmissionView => ({
  now: NOW,
  windowStart: budgetWindowStart(NOW),
  mission: mission('active', { maxExecutionsPerHour: 60, maxConcurrent: 10 }),
  triggers: new Map([['t-1', t]]),
  sources: new Map(),
});
const pending = (key: string): ObservedState => ({
  status: 'observed',
  occurrence: manualObserved(key),
  conflictingDigests: [],
});
const executionOf = (key: string) => executionIdFor(manualObserved(key).occurrenceId);
const counters = (running: string | null = null): MissionCounters => ({
  budget: initialBudgetState,
  concurrency: initialMissionSlots,
  overlap: new Map<string, OverlapState>([['t-1', { running }]]),
});
const decisions = (keys: string[], t = skipping, given = counters()) =>
  admitInOrder(keys.map(pending), view(t), given).steps.map((s) => s.decision[0]!);

describe('admitting Occurrences of a Trigger that skips overlaps (BA-3)', () => {
  it('blocks overlap_skip while an earlier execution runs, naming it as evidence', () => {
    const [decision] = decisions(['k-1'], skipping, counters('x-earlier'));
    expect(decision).toEqual<OccurrenceBlocked>({
      type: 'OccurrenceBlocked',
      data: {
        occurrenceId: manualObserved('k-1').occurrenceId,
        reason: 'overlap_skip',
        evidence: { triggerId: 't-1', overlap: 'skip', runningExecutionId: 'x-earlier' },
        decidedAt: NOW,
      },
    });
  });
  it('admits when none runs, takes the marker and records on the request that it holds one', () => {
    const admitted = admitInOrder([pending('k-1')], view(), counters());
    expect(admitted.steps[0]!.decision[0]!.type).toBe('OccurrenceAdmitted');
    expect((admitted.steps[0]!.decision[0] as OccurrenceAdmitted).data.request.overlap).toBe('skip');
    expect(admitted.overlap.get('t-1')).toEqual([started(executionOf('k-1'))]);
    expect(admitted.counters.overlap?.get('t-1')).toEqual({ running: executionOf('k-1') });
  });
  it('a backlog decided together admits only the first: the later ones see its marker', () => {
    const admitted = admitInOrder(['k-1', 'k-2', 'k-3'].map(pending), view(), counters());
    expect(admitted.steps.map((s) => s.decision[0]!.type)).toEqual([
      'OccurrenceAdmitted',
      'OccurrenceBlocked',
      'OccurrenceBlocked',
    ]);
    expect((admitted.steps[1]!.decision[0] as OccurrenceBlocked).data.evidence).toMatchObject({
      runningExecutionId: executionOf('k-1'),
    });
    expect(admitted.overlap.get('t-1')).toEqual([started(executionOf('k-1'))]);
  });
  it('its own marker, left by a retried admission, does not block it', () =>
    expect(decisions(['k-1'], skipping, counters(executionOf('k-1')))[0]!.type).toBe('OccurrenceAdmitted'));
  it('a Trigger that allows overlaps admits the whole backlog and takes no marker', () => {
    const admitted = admitInOrder(['k-1', 'k-2'].map(pending), view(allowing), counters('x-earlier'));
    expect(admitted.steps.map((s) => s.decision[0]!.type)).toEqual(['OccurrenceAdmitted', 'OccurrenceAdmitted']);
    expect(admitted.overlap.size).toBe(0);
    expect((admitted.steps[0]!.decision[0] as OccurrenceAdmitted).data.request.overlap).toBeUndefined();
  });
});
