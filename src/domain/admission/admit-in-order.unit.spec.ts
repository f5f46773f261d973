import { defaultDelivery } from '../trigger/trigger-blocks.js';
import { executionIdFor } from '../execution/execution.js';
import type { OccurrenceAdmitted, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { definition, manualObserved, mission, NOW, trigger } from '../occurrence/occurrence.fixtures.js';
import type { Decider } from '../shared/decider.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { isRejection } from '../shared/result.js';
import { type AdmissionView, admitInOrder, type MissionCounters, type ObservedState } from './admit-in-order.js';
import { budgetDecider, type BudgetEvent, budgetWindowStart, initialBudgetState } from './budget.js';
import { type ConcurrencyEvent } from './concurrency.js';
import type { BaselineEvent } from '../prefilter/baseline.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { baselineStream } from '../shared/ids.js';
import { evolveMissionSlots, initialMissionSlots, runningOf } from './slot-stripes.js';

type AdmissionEvent = BudgetEvent | ConcurrencyEvent | OccurrenceEvent | BaselineEvent;
interface AdmitBacklog {
  occurrences: ObservedState[];
  view: AdmissionView;
}

/**
 * A Mission's counters as a decider over a backlog, so a spec reads: given what was counted so far,
 * when these Occurrences are admitted in order, then these events are appended (counters first).
 */
const backlog: Decider<MissionCounters, AdmissionEvent, AdmitBacklog> = {
  initialState: { budget: initialBudgetState, concurrency: initialMissionSlots },
  evolve: (counters, event) => {
    switch (event.type) {
      case 'BudgetConsumed':
      case 'BudgetUnitsConsumed':
        return { ...counters, budget: budgetDecider.evolve(counters.budget, event) };
      case 'ExecutionSlotsTaken':
      case 'ExecutionSlotReleased':
        return { ...counters, concurrency: evolveMissionSlots(counters.concurrency, event) };
      default:
        return counters;
    }
  },
  decide: ({ occurrences, view }, counters) => {
    const admitted = admitInOrder(occurrences, view, counters);
    return [
      ...admitted.budget,
      ...admitted.slots,
      ...[...admitted.baselines.values()].flat(),
      ...admitted.steps.flatMap((s) => s.decision),
    ];
  },
};
const spec = deciderSpec(backlog);

const WINDOW = budgetWindowStart(NOW);
const LIMITS = { maxExecutionsPerHour: 10, maxConcurrent: 5 };
/** The opt-in admission-time limit (AD-2 `onConcurrencyLimit: block`): slots are taken here. */
const definedTrigger = trigger(
  {},
  {
    type: 'manual',
    source: null,
    constraints: { ...definition().constraints, ...LIMITS, onConcurrencyLimit: 'block' },
  },
);
/** The default: the limit governs claimed work, so admission takes no slot (AD-2). */
const queuedTrigger = trigger(
  {},
  { type: 'manual', source: null, constraints: { ...definition().constraints, ...LIMITS } },
);
const view = (over: Partial<AdmissionView> = {}): AdmissionView => ({
  now: NOW,
  windowStart: WINDOW,
  mission: mission('active', { maxExecutionsPerHour: 60, maxConcurrent: 10 }),
  triggers: new Map([['t-1', definedTrigger]]),
  sources: new Map(),
  ...over,
});

const pending = (key: string): ObservedState => ({
  status: 'observed',
  occurrence: manualObserved(key),
  conflictingDigests: [],
});
const idOf = (key: string) => manualObserved(key).occurrenceId;
const admitBacklog = (keys: string[], over: Partial<AdmissionView> = {}): AdmitBacklog => ({
  occurrences: keys.map(pending),
  view: view(over),
});

/** `count` units counted earlier in the window, by other Occurrences. */
const counted = (count: number, executionId = (i: number) => `x-other-${i}`): BudgetEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'BudgetConsumed',
    data: {
      tenant: 'acme',
      missionId: 'm-1',
      windowStart: WINDOW,
      occurrenceId: `other-${i}`,
      executionId: executionId(i),
      at: NOW,
    },
  }));
const running = (count: number): ConcurrencyEvent => ({
  type: 'ExecutionSlotsTaken',
  data: { tenant: 'acme', missionId: 'm-1', executionIds: ['x-other'], running: count, at: NOW },
});

const admitted = (key: string, slotTakenAt: 'admission' | 'claim' = 'admission'): OccurrenceAdmitted => {
  const { occurrenceId, input } = manualObserved(key);
  const executionId = executionIdFor(occurrenceId);
  const request = {
    executionId,
    tenant: 'acme',
    missionId: 'm-1',
    triggerId: 't-1',
    triggerRevision: 2,
    occurrenceId,
    input,
    resourceRefs: ['repo:acme/api'],
    lane: 'trigger:t-1',
    scheduledAt: null,
    firedAt: NOW,
    limits: LIMITS,
    slotTakenAt,
    delivery: defaultDelivery(),
  };
  return { type: 'OccurrenceAdmitted', data: { occurrenceId, executionId, firedAt: NOW, request, decidedAt: NOW } };
};

/** The appended events in words, Occurrences named by their idempotency key. */
function outcome(decision: AdmissionEvent[] | { code: string }, keys: string[]): string[] {
  if (isRejection(decision)) throw new Error(decision.code);
  const key = (occurrenceId: string) => keys.find((k) => idOf(k) === occurrenceId) ?? occurrenceId;
  return (decision as AdmissionEvent[]).map((e) => {
    switch (e.type) {
      case 'BudgetConsumed':
        return `budget counts ${key(e.data.occurrenceId)}`;
      case 'BudgetUnitsConsumed':
        return `budget counts ${e.data.units.map((u) => key(u.occurrenceId)).join(',')}`;
      case 'ExecutionSlotsTaken':
        return `slots taken (${e.data.executionIds.length}) on stripe ${e.data.stripe ?? 0}, ${e.data.running} there`;
      case 'OccurrenceAdmitted':
        return `admitted ${key(e.data.occurrenceId)} as ${e.data.executionId}`;
      case 'OccurrenceBlocked':
        return `blocked ${key(e.data.occurrenceId)}: ${e.data.reason}`;
      case 'OccurrenceSuppressed':
        return `suppressed ${key(e.data.occurrenceId)}: ${e.data.reason}`;
      case 'ResourceBaselineRecorded':
        return `baseline of ${String(e.data.resource)} is ${key(e.data.occurrenceId)} (${e.data.digest})`;
      default:
        return e.type;
    }
  });
}

describe('admitting a Mission backlog in acceptance order (AD-1, AD-2, AD-5)', () => {
  describe('when the budget and slots have room', () => {
    it('admits one Occurrence: counts one budget unit, takes one slot, then decides', () =>
      spec
        .given(counted(3))
        .when(admitBacklog(['k-1']))
        .then([
          {
            type: 'BudgetConsumed',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              windowStart: WINDOW,
              occurrenceId: idOf('k-1'),
              executionId: executionIdFor(idOf('k-1')),
              at: NOW,
            },
          },
          {
            type: 'ExecutionSlotsTaken',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              executionIds: [executionIdFor(idOf('k-1'))],
              running: 1,
              stripe: 0,
              at: NOW,
            },
          },
          admitted('k-1'),
        ]));

    it('admits a backlog in the order given, its units as one event, its slots as one event per stripe taken', () => {
      const keys = ['k-1', 'k-2', 'k-3'];
      expect(
        outcome(
          spec
            .given([running(1)])
            .when(admitBacklog(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1,k-2,k-3',
        // A limit of 5 gives stripes 0–4 one slot each; stripe 0 holds the running one.
        'slots taken (1) on stripe 1, 1 there',
        'slots taken (1) on stripe 2, 1 there',
        'slots taken (1) on stripe 3, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
        `admitted k-3 as ${executionIdFor(idOf('k-3'))}`,
      ]);
    });
  });

  describe('when an earlier admission of the backlog used the last budget unit', () => {
    it('blocks the later ones with budget_exhausted, counting only what it admitted', () => {
      const keys = ['k-1', 'k-2', 'k-3'];
      expect(outcome(spec.given(counted(9)).when(admitBacklog(keys)).result(), keys)).toEqual([
        'budget counts k-1',
        'slots taken (1) on stripe 0, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: budget_exhausted',
        'blocked k-3: budget_exhausted',
      ]);
    });

    it('shows the blocked one the count the earlier admissions left', () => {
      const blocked = (
        spec
          .given(counted(9))
          .when(admitBacklog(['k-1', 'k-2']))
          .result() as AdmissionEvent[]
      ).find((e) => e.type === 'OccurrenceBlocked');
      expect(blocked?.data).toMatchObject({ evidence: { consumed: 10, limit: 10, windowStart: WINDOW } });
    });
  });

  describe('when an earlier admission of the backlog took the last slot', () => {
    it('blocks the later ones with concurrency_limit and takes no slot for them', () => {
      const keys = ['k-1', 'k-2'];
      expect(
        outcome(
          spec
            .given([running(4)])
            .when(admitBacklog(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1',
        'slots taken (1) on stripe 1, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: concurrency_limit',
      ]);
    });
  });

  describe('when the Trigger queues over the limit (the default)', () => {
    const queued = (keys: string[]) => admitBacklog(keys, { triggers: new Map([['t-1', queuedTrigger]]) });
    it('admits past maxConcurrent, counts the budget and takes no slot: the claim takes it', () => {
      const keys = ['k-1', 'k-2'];
      expect(
        outcome(
          spec
            .given([running(5)])
            .when(queued(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1,k-2',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
      ]);
    });
    it('records on the request that the slot is taken at the claim', () =>
      spec
        .given([running(5)])
        .when(queued(['k-1']))
        .then([
          {
            type: 'BudgetConsumed',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              windowStart: WINDOW,
              occurrenceId: idOf('k-1'),
              executionId: executionIdFor(idOf('k-1')),
              at: NOW,
            },
          },
          admitted('k-1', 'claim'),
        ]));
    it('still blocks on the budget', () => {
      const keys = ['k-1', 'k-2'];
      expect(outcome(spec.given(counted(9)).when(queued(keys)).result(), keys)).toEqual([
        'budget counts k-1',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: budget_exhausted',
      ]);
    });
  });

  describe('when the Occurrence was already counted (a crash between the budget append and the decision)', () => {
    it('reuses the counted execution and counts nothing again', () => {
      const earlier: BudgetEvent = {
        type: 'BudgetConsumed',
        data: {
          tenant: 'acme',
          missionId: 'm-1',
          windowStart: WINDOW,
          occurrenceId: idOf('k-1'),
          executionId: 'x-counted',
          at: NOW,
        },
      };
      expect(
        outcome(
          spec
            .given([...counted(9), earlier])
            .when(admitBacklog(['k-1']))
            .result(),
          ['k-1'],
        ),
      ).toEqual(['slots taken (1) on stripe 0, 1 there', 'admitted k-1 as x-counted']);
    });
  });

  describe('when the Trigger no longer admits', () => {
    it('blocks every Occurrence and touches no counter', () => {
      const keys = ['k-1', 'k-2'];
      const disabled = { ...definedTrigger, enabled: false };
      expect(
        outcome(
          spec
            .given()
            .when(admitBacklog(keys, { triggers: new Map([['t-1', disabled]]) }))
            .result(),
          keys,
        ),
      ).toEqual(['blocked k-1: trigger_disabled', 'blocked k-2: trigger_disabled']);
    });
  });

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

  describe('the counters it returns', () => {
    it('are the budget and slots as the backlog left them, for the next backlog to start from', () => {
      const given = backlog.initialState;
      const { counters } = admitInOrder(['k-1', 'k-2', 'k-3'].map(pending), view(), given);
      expect(counters.budget.consumed).toBe(3);
      expect(runningOf(counters.concurrency)).toBe(3);
      const next = admitInOrder(['k-1', 'k-4'].map(pending), view(), counters);
      expect(next.budget).toHaveLength(1);
      expect(next.counters.budget.consumed).toBe(4);
      expect(next.steps[0]!.executionId).toBe(executionIdFor(idOf('k-1')));
    });
  });
});
