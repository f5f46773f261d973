import { executionIdFor } from '../execution/execution.js';
import type { CoalesceRead } from '../coalescing/coalesce-group.js';
import type { MissionState } from '../mission/mission.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../occurrence/occurrence.js';
import { CommandRejected } from '../shared/errors.js';
import { isRejection } from '../shared/result.js';
import { isKeyRetired, type SourceState } from '../source/source.js';
import type { TriggerState } from '../trigger/trigger.js';
import { type BaselineEvent, type BaselineState, evolveBaseline, recordBaseline } from '../prefilter/baseline.js';
import type { AdmissionFacts } from './admission-policy.js';
import { baselineTarget, type BaselineTarget } from './baselines.js';
import { type BudgetConsumed, budgetDecider, type BudgetState, consumeBudget, countedExecution } from './budget.js';
import type { ConcurrencyEvent } from './concurrency.js';
import { evolveMissionSlots, type MissionSlots, runningOf, takeMissionSlot } from './slot-stripes.js';
import type { BatchEvent, BatchPartitionState } from '../batch/batch-events.js';
import { evolveBatchPartition } from '../batch/batch.js';
import {
  blockingExecution,
  initialOverlapState,
  overlapDecider,
  type OverlapEvent,
  type OverlapState,
} from './overlap.js';

/** An Occurrence waiting for its decision (AD-1). */
export type ObservedState = Extract<OccurrenceState, { status: 'observed' }>;

/** Current state admissions are decided against (AD-2), read once for one or several Occurrences of a Mission. */
export interface AdmissionView {
  now: string;
  windowStart: string;
  mission: MissionState;
  triggers: ReadonlyMap<string, TriggerState>;
  sources: ReadonlyMap<string, SourceState>;
  /**
   * DD-5: by Occurrence stream, the members of the due groups read for the batch that are not among its
   * Occurrences, with the revision read (their decisions are appended there when the group closes).
   */
  held?: ReadonlyMap<string, { state: OccurrenceState; revision: number }>;
}

export interface MissionCounters {
  budget: BudgetState;
  /** AD-2: read only when the batch has an opt-in `block` Trigger, the one kind that takes slots at admission. */
  concurrency: MissionSlots;
  /** BA-3: by Trigger id, the markers of the batch's Triggers that skip overlaps; a missing one runs nothing. */
  overlap?: ReadonlyMap<string, OverlapState>;
  /** AD-4: by baseline stream, the `unchanged@1` baselines read for the batch; a missing one was not read. */
  baselines?: ReadonlyMap<string, BaselineState>;
  /** DD-5: by coalesce stream, the groups read for the batch (and what the batch did to them). */
  coalesce?: ReadonlyMap<string, CoalesceRead>;
  /** BA-1: by partition stream, the batch partitions read for the batch's batching Occurrences. */
  batches?: ReadonlyMap<string, BatchPartitionState>;
  /** BA-1: by occurrence id, the open batches' members as read, and those this run let join. */
  batchMembers?: ReadonlyMap<string, BatchMemberRead>;
}

/** `consumed` is empty when the Occurrence was already counted (a retry reuses its execution). */
export interface AdmissionStep {
  /** Every event for the Occurrence's stream (DD-5: joining a group, then perhaps its decision when it closes). */
  decision: OccurrenceEvent[];
  consumed: BudgetConsumed[];
  slot: ConcurrencyEvent[];
  /** BA-3: the Trigger's overlap marker taken by this admission. */
  overlap: OverlapEvent[];
  /** AD-4: the resource's baseline advanced by this admission, with the stream it goes to. */
  baseline: { streamId: string; events: BaselineEvent[] } | null;
  executionId: string | null;
  /** BA-1: the partition's batch events (join, and any batch this step closed). */
  batch?: { streamId: string; events: BatchEvent[] };
  /** BA-1: decisions of the members of a batch this step closed (the Occurrence's own are in `decision`). */
  members?: { occurrenceId: string; events: OccurrenceEvent[] }[];
  /** BA-1: the Occurrence as it joined its batch, so a later close in this run finds it. */
  joined?: BatchMemberRead;
}

/** A batch member as its close needs it: its evidence, and where its decision is appended (BA-1). */
export interface BatchMemberRead {
  occurrence: ObservedOccurrence;
  streamId: string;
  /** The member stream's revision as read; null when it joined in this run (its decision rides on its own append). */
  expected: number | null;
  /** DD-5: joined as a coalesced group's representative: the group's members in acceptance order (OP-2). */
  coalesced?: string[];
}

/**
 * A member of an open batch as read from its Occurrence stream (BA-1). DD-5: a coalesced group's representative stands
 * in its batch with its group's causality (CA-1/CA-3) and names its group (`coalesced`, OP-2), both from its join.
 */
export function batchMemberOf(state: ObservedState, streamId: string, expected: number): BatchMemberRead {
  const causal = state.batch?.causal;
  const occurrence = causal ? { ...state.occurrence, causal } : state.occurrence;
  const coalesced = state.batch?.coalesced ? { coalesced: [...state.batch.coalesced] } : {};
  return { occurrence, streamId, expected, ...coalesced };
}

/** AD-2/WH-3: the key that authenticated a delivery, which must still be current at decision time. */
export function authenticatingKey(occurrence: ObservedOccurrence): { sourceId: string; keyId: string } | null {
  const { state, sourceId, keyId } = occurrence.auth;
  return state === 'verified' && sourceId && keyId ? { sourceId, keyId } : null;
}

/** Refused by budget or (opt-in) slots after the policy admitted: decided again, blocked with the counters' reason. */
export function admissionStep(
  state: ObservedState,
  view: AdmissionView,
  counters: MissionCounters,
  members?: string[],
): AdmissionStep {
  const { occurrence } = state;
  const { tenant, missionId, occurrenceId } = occurrence;
  const { budget, concurrency } = counters;
  const counted = countedExecution(budget, occurrenceId);
  const trigger = view.triggers.get(occurrence.triggerId)!;
  const target = baselineTarget(tenant, occurrence.triggerId, trigger, occurrence.input);
  const facts = factsFor(state, view, counters);
  // A retry after a crash between the budget append and the decision reuses the counted execution.
  const executionId = counted ?? executionIdFor(occurrenceId);
  const decision = decide(state, executionId, view.now, facts, members);
  const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
  if (!admitted) return { decision, consumed: [], slot: [], overlap: [], baseline: null, executionId: null };
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
    return blockedAfterAll(state, view, { ...facts, budget: exhausted }, members);
  }
  const overlap =
    admitted.data.request.overlap === 'skip'
      ? startExecution(occurrence, executionId, view.now, overlapOf(counters, occurrence.triggerId))
      : [];
  const baseline = target ? advanceBaseline(occurrence, target, trigger, view.now, counters) : null;
  // AD-2: queued executions take their slot when claimed; only the opt-in `block` takes it here.
  if (admitted.data.request.slotTakenAt !== 'admission')
    return { decision, consumed, slot: [], overlap, baseline, executionId };
  const slot = takeMissionSlot(
    { tenant, missionId, executionId, limit: limits.maxConcurrent, at: view.now },
    concurrency,
    ([first]) => first!,
  );
  if (isRejection(slot))
    return blockedAfterAll(state, view, { ...facts, activeExecutions: Number.MAX_SAFE_INTEGER }, members);
  return { decision, consumed, slot, overlap, baseline, executionId };
}

/** AD-2: the current state one Occurrence is decided against, the counters as the earlier ones left them. */
export function factsFor(state: ObservedState, view: AdmissionView, counters: MissionCounters): AdmissionFacts {
  const { occurrence } = state;
  const { tenant, occurrenceId } = occurrence;
  const running = blockingExecution(overlapOf(counters, occurrence.triggerId), executionIdFor(occurrenceId));
  const key = authenticatingKey(occurrence);
  const trigger = view.triggers.get(occurrence.triggerId)!;
  const target = baselineTarget(tenant, occurrence.triggerId, trigger, occurrence.input);
  // An earlier admission of this batch is already in the counters, so it is this one's baseline (AD-4).
  const baselines = new Map<string, BaselineState>();
  if (target && counters.baselines?.has(target.streamId))
    baselines.set(target.key, counters.baselines.get(target.streamId)!);
  return {
    trigger,
    mission: view.mission,
    budget: {
      windowStart: view.windowStart,
      consumed: counters.budget.consumed,
      alreadyCountedThisOccurrence: countedExecution(counters.budget, occurrenceId) !== null,
    },
    activeExecutions: runningOf(counters.concurrency),
    keyRevoked: key ? isKeyRetired(view.sources.get(key.sourceId)!, key.keyId) : false,
    triggerRunning: running !== null,
    runningExecutionId: running,
    baselines,
  };
}

/** AD-4: an admission that passed `unchanged@1` becomes its resource's baseline (its digest is a string then). */
export function advanceBaseline(
  occurrence: ObservedOccurrence,
  target: BaselineTarget,
  trigger: TriggerState,
  at: string,
  counters: MissionCounters,
): AdmissionStep['baseline'] {
  if (target.digest === null || trigger.status !== 'defined') return null;
  const { tenant, triggerId, occurrenceId } = occurrence;
  const events = recordBaseline(
    {
      type: 'RecordBaseline',
      tenant,
      triggerId,
      resource: target.resource,
      digest: target.digest,
      occurrenceId,
      triggerRevision: trigger.revision,
      at,
    },
    counters.baselines?.get(target.streamId) ?? null,
  );
  return events.length > 0 ? { streamId: target.streamId, events } : null;
}

export const overlapOf = (counters: MissionCounters, triggerId: string): OverlapState =>
  counters.overlap?.get(triggerId) ?? initialOverlapState;

/** The policy already refused a blocked one, so a rejection here is a bug, not a decision. */
function startExecution(
  occurrence: ObservedOccurrence,
  executionId: string,
  at: string,
  state: OverlapState,
): OverlapEvent[] {
  const { tenant, triggerId } = occurrence;
  const started = overlapDecider.decide({ type: 'StartTriggerExecution', tenant, triggerId, executionId, at }, state);
  if (isRejection(started)) throw new CommandRejected(started);
  return started;
}

/** The counters as a step left them, for the next Occurrence of the run (AD-5). */
export function countersAfter(counters: MissionCounters, step: AdmissionStep): MissionCounters {
  const overlap = new Map(counters.overlap ?? []);
  for (const event of step.overlap)
    overlap.set(event.data.triggerId, overlapDecider.evolve(overlapOf(counters, event.data.triggerId), event));
  const baselines = new Map(counters.baselines ?? []);
  if (step.baseline)
    baselines.set(
      step.baseline.streamId,
      step.baseline.events.reduce(evolveBaseline, baselines.get(step.baseline.streamId) ?? null),
    );
  const batches = new Map(counters.batches ?? []);
  if (step.batch)
    batches.set(step.batch.streamId, step.batch.events.reduce(evolveBatchPartition, batches.get(step.batch.streamId)!));
  const batchMembers = step.joined
    ? new Map(counters.batchMembers ?? []).set(step.joined.occurrence.occurrenceId, step.joined)
    : counters.batchMembers;
  return {
    ...counters,
    budget: step.consumed.reduce(budgetDecider.evolve, counters.budget),
    concurrency: step.slot.reduce(evolveMissionSlots, counters.concurrency),
    ...(counters.overlap || step.overlap.length > 0 ? { overlap } : {}),
    ...(counters.baselines || step.baseline ? { baselines } : {}),
    ...(counters.batches || step.batch ? { batches } : {}),
    ...(batchMembers ? { batchMembers } : {}),
  };
}

function blockedAfterAll(
  state: ObservedState,
  view: AdmissionView,
  facts: AdmissionFacts,
  members: string[] | undefined,
): AdmissionStep {
  const decision = decide(state, executionIdFor(state.occurrence.occurrenceId), view.now, facts, members);
  return { decision, consumed: [], slot: [], overlap: [], baseline: null, executionId: null };
}

export function decide(
  state: ObservedState,
  executionId: string,
  now: string,
  facts: AdmissionFacts,
  members?: string[],
): OccurrenceEvent[] {
  const { occurrenceId } = state.occurrence;
  const command = {
    type: 'AdmitOccurrence' as const,
    occurrenceId,
    executionId,
    now,
    facts,
    ...(members ? { members } : {}),
  };
  const events = occurrenceDecider.decide(command, state);
  if (isRejection(events)) throw new CommandRejected(events);
  return events;
}
