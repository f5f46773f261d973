import type { BaselineEvent } from '../prefilter/baseline.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import type { BatchCloseCause, BatchEvent } from '../batch/batch-events.js';
import { mergeBudgetConsumed, type BudgetEvent } from './budget.js';
import { type ConcurrencyEvent, mergeSlotsTaken } from './concurrency.js';
import type { OverlapEvent } from './overlap.js';
import {
  type AdmissionStep,
  type AdmissionView,
  countersAfter,
  decisionStep,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';
import { batchStep, closeBatch } from './batch-admission.js';

export interface AdmittedInOrder {
  steps: AdmissionStep[];
  budget: BudgetEvent[];
  /** One event per slot stripe taken. */
  slots: ConcurrencyEvent[];
  /** By Trigger id, in acceptance order. */
  overlap: ReadonlyMap<string, OverlapEvent[]>;
  /** By baseline stream, in acceptance order. */
  baselines: ReadonlyMap<string, BaselineEvent[]>;
  /** BA-1: by partition stream, in acceptance order. */
  batches: ReadonlyMap<string, BatchEvent[]>;
  /** BA-1: by occurrence id, every decision of a batch member (closed in this run), in order. */
  memberDecisions: ReadonlyMap<string, OccurrenceEvent[]>;
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
  return inOrder(steps, counters);
}

/** BA-1: a due batch's close (by its timer) decided on its own, merged like a backlog's decisions. */
export function closeInOrder(
  streamId: string,
  cause: BatchCloseCause,
  view: AdmissionView,
  counters: MissionCounters,
): AdmittedInOrder {
  const step = closeBatch(streamId, cause, view, counters);
  return inOrder([step], countersAfter(counters, step));
}

function inOrder(steps: AdmissionStep[], counters: MissionCounters): AdmittedInOrder {
  return {
    steps,
    budget: mergeBudgetConsumed(steps.flatMap((s) => s.consumed)),
    slots: mergeSlotsTaken(steps.flatMap((s) => s.slot)),
    overlap: overlapByTrigger(steps),
    baselines: baselinesByStream(steps),
    batches: batchesByStream(steps),
    memberDecisions: memberDecisionsOf(steps),
    counters,
  };
}

function batchesByStream(steps: readonly AdmissionStep[]): Map<string, BatchEvent[]> {
  const byStream = new Map<string, BatchEvent[]>();
  for (const { batch } of steps)
    if (batch && batch.events.length > 0)
      byStream.set(batch.streamId, [...(byStream.get(batch.streamId) ?? []), ...batch.events]);
  return byStream;
}

function memberDecisionsOf(steps: readonly AdmissionStep[]): Map<string, OccurrenceEvent[]> {
  const byMember = new Map<string, OccurrenceEvent[]>();
  for (const { occurrenceId, events } of steps.flatMap((s) => s.members ?? []))
    byMember.set(occurrenceId, [...(byMember.get(occurrenceId) ?? []), ...events]);
  return byMember;
}

/** An Occurrence of a batching Trigger joins its partition's batch (BA-1); the others are decided here. */
function admissionStep(state: ObservedState, view: AdmissionView, counters: MissionCounters): AdmissionStep {
  const batched = batchStep(state, view, counters);
  return batched ?? decisionStep(state, view, counters);
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

export type { AdmissionStep, AdmissionView, MissionCounters, ObservedState } from './admission-step.js';
