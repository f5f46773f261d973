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

export type AdmissionEvent = BudgetEvent | ConcurrencyEvent | OccurrenceEvent | BaselineEvent;
export interface AdmitBacklog {
  occurrences: ObservedState[];
  view: AdmissionView;
}

/**
 * Shared by the admit-in-order specs. A Mission's counters as a decider over a backlog, so a spec reads: given what was counted so far,
 * when these Occurrences are admitted in order, then these events are appended (counters first).
 */
export const backlog: Decider<MissionCounters, AdmissionEvent, AdmitBacklog> = {
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
export const spec = deciderSpec(backlog);

export const WINDOW = budgetWindowStart(NOW);
export const LIMITS = { maxExecutionsPerHour: 10, maxConcurrent: 5 };
/** The opt-in admission-time limit (AD-2 `onConcurrencyLimit: block`): slots are taken here. */
export const definedTrigger = trigger(
  {},
  {
    type: 'manual',
    source: null,
    constraints: { ...definition().constraints, ...LIMITS, onConcurrencyLimit: 'block' },
  },
);
/** The default: the limit governs claimed work, so admission takes no slot (AD-2). */
export const queuedTrigger = trigger(
  {},
  { type: 'manual', source: null, constraints: { ...definition().constraints, ...LIMITS } },
);
export const view = (over: Partial<AdmissionView> = {}): AdmissionView => ({
  now: NOW,
  windowStart: WINDOW,
  mission: mission('active', { maxExecutionsPerHour: 60, maxConcurrent: 10 }),
  triggers: new Map([['t-1', definedTrigger]]),
  sources: new Map(),
  ...over,
});

export const pending = (key: string): ObservedState => ({
  status: 'observed',
  occurrence: manualObserved(key),
  conflictingDigests: [],
});
export const idOf = (key: string) => manualObserved(key).occurrenceId;
export const admitBacklog = (keys: string[], over: Partial<AdmissionView> = {}): AdmitBacklog => ({
  occurrences: keys.map(pending),
  view: view(over),
});

/** `count` units counted earlier in the window, by other Occurrences. */
export const counted = (count: number, executionId = (i: number) => `x-other-${i}`): BudgetEvent[] =>
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
export const running = (count: number): ConcurrencyEvent => ({
  type: 'ExecutionSlotsTaken',
  data: { tenant: 'acme', missionId: 'm-1', executionIds: ['x-other'], running: count, at: NOW },
});

export const admitted = (key: string, slotTakenAt: 'admission' | 'claim' = 'admission'): OccurrenceAdmitted => {
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
export function outcome(decision: AdmissionEvent[] | { code: string }, keys: string[]): string[] {
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
