import type { BatchCloseCause, BatchEvent } from '../batch/batch-events.js';
import type { CoalesceEvent } from '../coalescing/coalesce-group.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import type { BaselineEvent } from '../prefilter/baseline.js';
import {
  admissionStep,
  type AdmissionStep,
  type AdmissionView,
  countersAfter,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';
import { batchStep, closeBatch } from './batch-admission.js';
import { type BudgetEvent, mergeBudgetConsumed } from './budget.js';
import { CoalescingRun, decideInOrder, streamOf } from './coalescing.js';
import { type ConcurrencyEvent, mergeSlotsTaken } from './concurrency.js';
import type { OverlapEvent } from './overlap.js';

export {
  type AdmissionStep,
  type AdmissionView,
  authenticatingKey,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';

export interface AdmittedInOrder {
  /** One per Occurrence given, in that order: `decision` holds every event for its stream (maybe none, DD-5, BA-1). */
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
  /** BA-1: by partition stream, in acceptance order. */
  batches: ReadonlyMap<string, BatchEvent[]>;
  /** BA-1: by occurrence id, every decision of a batch member (closed in this run), in order. */
  memberDecisions: ReadonlyMap<string, OccurrenceEvent[]>;
  counters: MissionCounters;
}

/**
 * AD-5: a Mission's Occurrences decided in acceptance order, each against the counters as the earlier
 * ones left them, so a backlog decided together counts the budget exactly as one by one would. DD-5: an
 * Occurrence may join a coalescing group instead, or close one (see `decideInOrder`); BA-1: one of a batching
 * Trigger joins its partition's batch instead, and may close it (see `batchStep`). A Trigger with both blocks
 * coalesces first and batches second: a closing group's representative joins its batch (see `close`).
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
    for (const step of decideInOrder(state, view, counters, run, decideAlone)) {
      counters = countersAfter(counters, step);
      const kept = inRun(step, counters, run);
      decided.push(kept);
      if (kept.executionId) own.set(kept.executionId, kept);
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
    ...merged(decided, counters),
    steps,
    coalesce: run.groupAppends(),
    held: run.heldDecisions(occurrences),
    counters: { ...counters, ...(counters.coalesce ? { coalesce: run.groupReads() } : {}) },
  };
}

/** BA-1: a due batch's close (by its timer) decided on its own, merged like a backlog's decisions. */
export function closeInOrder(
  streamId: string,
  cause: BatchCloseCause,
  view: AdmissionView,
  counters: MissionCounters,
): AdmittedInOrder {
  const step = closeBatch(streamId, cause, view, counters);
  return { ...merged([step], countersAfter(counters, step)), steps: [step], coalesce: new Map(), held: new Map() };
}

/**
 * BA-1 with DD-5: a closed batch's decision of a group's representative that the run read for the group's close
 * (not one of its own Occurrences) goes onto its stream through the run, after its join, so that stream gets one
 * append; the run's own Occurrences and members read from their batch keep the batch's appends.
 */
function inRun(step: AdmissionStep, counters: MissionCounters, run: CoalescingRun): AdmissionStep {
  if (!step.members) return step;
  const kept = step.members.filter(({ occurrenceId, events }) => {
    const streamId = counters.batchMembers?.get(occurrenceId)?.streamId;
    if (!streamId || !run.readForGroup(streamId)) return true;
    run.record(streamId, events);
    return false;
  });
  const { members: _members, ...rest } = step;
  return kept.length > 0 ? { ...rest, members: kept } : rest;
}

/** An Occurrence that coalesces with none: a batching Trigger's joins its batch (BA-1), any other is decided. */
function decideAlone(state: ObservedState, view: AdmissionView, counters: MissionCounters): AdmissionStep {
  return batchStep(state, view, counters) ?? admissionStep(state, view, counters);
}

/** Every counter-moving step of the run merged into one append per stream, in acceptance order. */
function merged(
  decided: readonly AdmissionStep[],
  counters: MissionCounters,
): Omit<AdmittedInOrder, 'steps' | 'coalesce' | 'held'> {
  const overlap = new Map<string, OverlapEvent[]>();
  for (const event of decided.flatMap((s) => s.overlap))
    overlap.set(event.data.triggerId, [...(overlap.get(event.data.triggerId) ?? []), event]);
  const memberDecisions = new Map<string, OccurrenceEvent[]>();
  for (const { occurrenceId, events } of decided.flatMap((s) => s.members ?? []))
    memberDecisions.set(occurrenceId, [...(memberDecisions.get(occurrenceId) ?? []), ...events]);
  return {
    budget: mergeBudgetConsumed(decided.flatMap((s) => s.consumed)),
    slots: mergeSlotsTaken(decided.flatMap((s) => s.slot)),
    overlap,
    baselines: byStream(decided.map((s) => s.baseline)),
    batches: byStream(decided.map((s) => s.batch ?? null)),
    memberDecisions,
    counters,
  };
}

function byStream<E>(appends: readonly ({ streamId: string; events: E[] } | null)[]): Map<string, E[]> {
  const grouped = new Map<string, E[]>();
  for (const append of appends)
    if (append && append.events.length > 0)
      grouped.set(append.streamId, [...(grouped.get(append.streamId) ?? []), ...append.events]);
  return grouped;
}
