import { executionIdFor } from '../execution/execution.js';
import type { MissionState } from '../mission/mission.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../occurrence/occurrence.js';
import { CommandRejected } from '../shared/errors.js';
import { isRejection } from '../shared/result.js';
import { isKeyRetired, type SourceState } from '../source/source.js';
import type { TriggerState } from '../trigger/trigger.js';
import type { AdmissionFacts } from './admission-policy.js';
import {
  type BudgetConsumed,
  budgetDecider,
  type BudgetEvent,
  type BudgetState,
  consumeBudget,
  countedExecution,
  mergeBudgetConsumed,
} from './budget.js';
import { type ConcurrencyEvent, concurrencyDecider, type ConcurrencyState, mergeSlotsTaken } from './concurrency.js';

/** An Occurrence waiting for its decision (AD-1). */
export type ObservedState = Extract<OccurrenceState, { status: 'observed' }>;

/** Current state admissions are decided against (AD-2), read once for one or several Occurrences of a Mission. */
export interface AdmissionView {
  /** The store clock: decision time, and the budget window it falls in. */
  now: string;
  windowStart: string;
  mission: MissionState;
  /** Each Occurrence's Trigger, by id. */
  triggers: ReadonlyMap<string, TriggerState>;
  /** The Source of each Occurrence a key authenticated, by id (see authenticatingKey). */
  sources: ReadonlyMap<string, SourceState>;
}

/** The Mission's budget window and concurrency slots, as the admissions decided so far leave them. */
export interface MissionCounters {
  budget: BudgetState;
  concurrency: ConcurrencyState;
}

/**
 * One admission: its decision (carrying the execution request, EX-1) and, when admitted, the budget
 * unit it counts (none when already counted) and the Mission slot it takes.
 */
export interface AdmissionStep {
  decision: OccurrenceEvent[];
  consumed: BudgetConsumed[];
  slot: ConcurrencyEvent[];
  executionId: string | null;
}

/** What admitting a Mission's Occurrences in order decided. */
export interface AdmittedInOrder {
  /** One step per Occurrence, in the order given. */
  steps: AdmissionStep[];
  /** What the budget window's stream appends: a batch's units as one event. */
  budget: BudgetEvent[];
  /** What the Mission's slots stream appends: a batch's slots as one event. */
  slots: ConcurrencyEvent[];
  /** The counters as the steps left them: the Mission's newest counters once all of it is appended. */
  counters: MissionCounters;
}

/**
 * AD-5: a Mission's Occurrences decided in acceptance order, each against the counters as the earlier
 * ones left them, so a backlog decided together counts the budget exactly as one by one would.
 */
export function admitInOrder(
  occurrences: readonly ObservedState[],
  view: AdmissionView,
  counters: MissionCounters,
): AdmittedInOrder {
  const steps: AdmissionStep[] = [];
  for (const state of occurrences) {
    const step = admissionStep(state, view, counters);
    counters = countersAfter(counters, step);
    steps.push(step);
  }
  return {
    steps,
    budget: mergeBudgetConsumed(steps.flatMap((s) => s.consumed)),
    slots: mergeSlotsTaken(steps.flatMap((s) => s.slot)),
    counters,
  };
}

/** AD-2/WH-3: the key that authenticated a delivery, which must still be current at decision time. */
export function authenticatingKey(occurrence: ObservedOccurrence): { sourceId: string; keyId: string } | null {
  const { state, sourceId, keyId } = occurrence.auth;
  return state === 'verified' && sourceId && keyId ? { sourceId, keyId } : null;
}

/**
 * Decides one Occurrence against the view and the counters as they stand, and counts it. The policy
 * admits on the counts it is shown; the budget and slot deciders then re-check the limit. When they
 * refuse, the Occurrence is decided again as exhausted or at the limit, so it is blocked with the
 * reason the counters give rather than admitted past them.
 */
function admissionStep(state: ObservedState, view: AdmissionView, counters: MissionCounters): AdmissionStep {
  const { occurrence } = state;
  const { tenant, missionId, occurrenceId } = occurrence;
  const { budget, concurrency } = counters;
  const counted = countedExecution(budget, occurrenceId);
  const key = authenticatingKey(occurrence);
  const facts: AdmissionFacts = {
    trigger: view.triggers.get(occurrence.triggerId)!,
    mission: view.mission,
    budget: {
      windowStart: view.windowStart,
      consumed: budget.consumed,
      alreadyCountedThisOccurrence: counted !== null,
    },
    activeExecutions: concurrency.running,
    keyRevoked: key ? isKeyRetired(view.sources.get(key.sourceId)!, key.keyId) : false,
    // BA-3 `overlap: skip` needs per-Trigger running executions; not tracked yet.
    triggerRunning: false,
  };
  // A retry after a crash between the budget append and the decision reuses the counted execution.
  const executionId = counted ?? executionIdFor(occurrenceId);
  const decision = decide(state, executionId, view.now, facts);
  const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
  if (!admitted) return { decision, consumed: [], slot: [], executionId: null };
  const { limits } = admitted.data.request;
  const consumed =
    counted !== null
      ? []
      : consumeBudget(
          {
            type: 'ConsumeBudget',
            tenant,
            missionId,
            windowStart: view.windowStart,
            occurrenceId,
            executionId,
            limit: limits.maxExecutionsPerHour,
            at: view.now,
          },
          budget,
        );
  if (isRejection(consumed)) {
    if (consumed.code !== 'budget_exhausted') throw new CommandRejected(consumed);
    const exhausted = { ...facts.budget, consumed: Number.MAX_SAFE_INTEGER, alreadyCountedThisOccurrence: false };
    return blockedAfterAll(state, view, { ...facts, budget: exhausted });
  }
  const slot = concurrencyDecider.decide(
    { type: 'TakeSlot', tenant, missionId, executionId, limit: limits.maxConcurrent, at: view.now },
    concurrency,
  );
  if (isRejection(slot)) return blockedAfterAll(state, view, { ...facts, activeExecutions: Number.MAX_SAFE_INTEGER });
  return { decision, consumed, slot, executionId };
}

/** The counters evolved by one step, for the next admission of the same batch. */
function countersAfter(counters: MissionCounters, step: AdmissionStep): MissionCounters {
  return {
    budget: step.consumed.reduce(budgetDecider.evolve, counters.budget),
    concurrency: step.slot.reduce(concurrencyDecider.evolve, counters.concurrency),
  };
}

function blockedAfterAll(state: ObservedState, view: AdmissionView, facts: AdmissionFacts): AdmissionStep {
  const decision = decide(state, executionIdFor(state.occurrence.occurrenceId), view.now, facts);
  return { decision, consumed: [], slot: [], executionId: null };
}

function decide(state: ObservedState, executionId: string, now: string, facts: AdmissionFacts): OccurrenceEvent[] {
  const { occurrenceId } = state.occurrence;
  const events = occurrenceDecider.decide({ type: 'AdmitOccurrence', occurrenceId, executionId, now, facts }, state);
  if (isRejection(events)) throw new CommandRejected(events);
  return events;
}
