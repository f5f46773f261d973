import type { CoalesceEvent } from '../coalescing/coalesce-group.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { type BaselineEvent, evolveBaseline } from '../prefilter/baseline.js';
import {
  type AdmissionStep,
  type AdmissionView,
  type MissionCounters,
  type ObservedState,
  overlapOf,
} from './admission-step.js';
import { budgetDecider, type BudgetEvent, mergeBudgetConsumed } from './budget.js';
import { CoalescingRun, decideInOrder, streamOf } from './coalescing.js';
import { type ConcurrencyEvent, mergeSlotsTaken } from './concurrency.js';
import { overlapDecider, type OverlapEvent } from './overlap.js';
import { evolveMissionSlots } from './slot-stripes.js';

export {
  type AdmissionStep,
  type AdmissionView,
  authenticatingKey,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';

export interface AdmittedInOrder {
  /** One per Occurrence given, in that order: `decision` holds every event for its stream (maybe none, DD-5). */
  steps: AdmissionStep[];
  budget: BudgetEvent[];
  /** One event per slot stripe taken. */
  slots: ConcurrencyEvent[];
  /** By Trigger id, in acceptance order. */
  overlap: ReadonlyMap<string, OverlapEvent[]>;
  /** By baseline stream, in acceptance order. */
  baselines: ReadonlyMap<string, BaselineEvent[]>;
  /** DD-5: by coalesce stream, the joins and closes, each appended at the revision read. */
  coalesce: ReadonlyMap<string, CoalesceEvent[]>;
  /** DD-5: by Occurrence stream, the decisions of members that were read for a closing group (`view.held`). */
  held: ReadonlyMap<string, OccurrenceEvent[]>;
  counters: MissionCounters;
}

/**
 * AD-5: a Mission's Occurrences decided in acceptance order, each against the counters as the earlier
 * ones left them, so a backlog decided together counts the budget exactly as one by one would. DD-5: an
 * Occurrence may join a coalescing group instead, or close one (see `decideInOrder`).
 */
export function admitInOrder(
  occurrences: readonly ObservedState[],
  view: AdmissionView,
  counters: MissionCounters,
): AdmittedInOrder {
  const run = new CoalescingRun(occurrences, view, counters.coalesce);
  const decided: AdmissionStep[] = [];
  const own = new Map<string, AdmissionStep>();
  for (const state of occurrences) {
    for (const step of decideInOrder(state, view, counters, run)) {
      counters = countersAfter(counters, step);
      decided.push(step);
      if (step.executionId) own.set(step.executionId, step);
    }
  }
  const steps = occurrences.map((state) => {
    const decision = run.eventsOf(streamOf(state));
    const admitted = decision.find((e) => e.type === 'OccurrenceAdmitted');
    const step = admitted ? own.get(admitted.data.executionId) : undefined;
    return step
      ? { ...step, decision }
      : { decision, consumed: [], slot: [], overlap: [], baseline: null, executionId: null };
  });
  return {
    steps,
    budget: mergeBudgetConsumed(decided.flatMap((s) => s.consumed)),
    slots: mergeSlotsTaken(decided.flatMap((s) => s.slot)),
    overlap: overlapByTrigger(decided),
    baselines: baselinesByStream(decided),
    coalesce: run.groupAppends(),
    held: run.heldDecisions(occurrences),
    counters: { ...counters, ...(counters.coalesce ? { coalesce: run.groupReads() } : {}) },
  };
}

function baselinesByStream(steps: readonly AdmissionStep[]): Map<string, BaselineEvent[]> {
  const byStream = new Map<string, BaselineEvent[]>();
  for (const { baseline } of steps)
    if (baseline) byStream.set(baseline.streamId, [...(byStream.get(baseline.streamId) ?? []), ...baseline.events]);
  return byStream;
}

function overlapByTrigger(steps: readonly AdmissionStep[]): Map<string, OverlapEvent[]> {
  const byTrigger = new Map<string, OverlapEvent[]>();
  for (const event of steps.flatMap((s) => s.overlap))
    byTrigger.set(event.data.triggerId, [...(byTrigger.get(event.data.triggerId) ?? []), event]);
  return byTrigger;
}

function countersAfter(counters: MissionCounters, step: AdmissionStep): MissionCounters {
  const overlap = new Map(counters.overlap ?? []);
  for (const event of step.overlap)
    overlap.set(event.data.triggerId, overlapDecider.evolve(overlapOf(counters, event.data.triggerId), event));
  const baselines = new Map(counters.baselines ?? []);
  if (step.baseline)
    baselines.set(
      step.baseline.streamId,
      step.baseline.events.reduce(evolveBaseline, baselines.get(step.baseline.streamId) ?? null),
    );
  return {
    ...counters,
    budget: step.consumed.reduce(budgetDecider.evolve, counters.budget),
    concurrency: step.slot.reduce(evolveMissionSlots, counters.concurrency),
    ...(counters.overlap || step.overlap.length > 0 ? { overlap } : {}),
    ...(counters.baselines || step.baseline ? { baselines } : {}),
  };
}
