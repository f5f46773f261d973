import { mergedLink } from '../causality/causal-link.js';
import { executionIdFor } from '../execution/execution.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { isKeyRetired } from '../source/source.js';
import { occurrenceDecider } from '../occurrence/occurrence.js';
import { CommandRejected, IllegalStateError } from '../shared/errors.js';
import { isRejection } from '../shared/result.js';
import { batchStream, occurrenceStream } from '../shared/ids.js';
import type { TriggerState } from '../trigger/trigger.js';
import type { BatchPolicy } from '../trigger/trigger-blocks.js';
import type { BatchClosed, BatchCloseCause, BatchPartitionState } from '../batch/batch-events.js';
import { acceptanceOrder, closeCauseAt, joinBatch, partitionOf } from '../batch/batch.js';
import {
  admissionStep,
  type AdmissionStep,
  authenticatingKey,
  type AdmissionView,
  advanceBaseline,
  countersAfter,
  decide,
  factsFor,
  type MissionCounters,
  type BatchMemberRead,
  type ObservedState,
} from './admission-step.js';
import { baselineTarget } from './baselines.js';

/** BA-1: the current definition's batch block, when the Trigger is live and batches. */
export const batchPolicyOf = (trigger: TriggerState): BatchPolicy | null =>
  trigger.status === 'defined' && !trigger.deleted ? (trigger.definition.batch ?? null) : null;

/** A step that moves no counter (a fresh object each time: steps are combined by spreading). */
const none = (decision: OccurrenceEvent[]): AdmissionStep => ({
  decision,
  consumed: [],
  slot: [],
  overlap: [],
  baseline: null,
  executionId: null,
});

/** DD-5: a closed coalescing group's last member, joining its batch for the whole group (BA-1). */
export interface Representing {
  /** The group's members in acceptance order, the last being the joining Occurrence. */
  members: string[];
  /** When the group closed (its window's end; a full group: its last member's acceptance): its batch acceptance. */
  joinAt: string;
}

/**
 * BA-1, in acceptance order: an Occurrence of a batching Trigger is first judged on its own by every rule that is
 * about it (authority, trust, key, scope, causality, guard, prefilters: `blocked`/`suppressed` at once, never
 * joining); the rules about the one execution (overlap, budget, concurrency) are left to its batch's close. A
 * wanted Occurrence joins the open batch of its partition, after closing that batch if the member's acceptance
 * reached its deadline; a join that fills the batch closes it. null: the Trigger does not batch.
 * DD-5 `representing`: a closed group's last member is judged by the whole policy with the counters as they stand
 * (as a group's decision always is; refused, that decision stands, with the group's `members` in its evidence) and,
 * wanted, joins its batch at the group's close instead of being admitted; nothing is counted until the batch closes.
 */
export function batchStep(
  state: ObservedState,
  view: AdmissionView,
  counters: MissionCounters,
  representing?: Representing,
): AdmissionStep | null {
  const { occurrence } = state;
  // Joined already (a replayed admission): its batch's close decides it.
  if (state.batch) return none([]);
  const trigger = view.triggers.get(occurrence.triggerId)!;
  const policy = batchPolicyOf(trigger);
  if (!policy) return null;
  const { occurrenceId, tenant, triggerId, triggerRevision, missionId } = occurrence;
  const acceptedAt = representing?.joinAt ?? occurrence.observedAt;
  const facts = factsFor(state, view, counters);
  const target = baselineTarget(tenant, triggerId, trigger, occurrence.input);
  const alone = representing
    ? facts
    : {
        ...facts,
        budget: { ...facts.budget, alreadyCountedThisOccurrence: true },
        activeExecutions: 0,
        triggerRunning: false,
        runningExecutionId: null,
      };
  const verdict = decide(state, executionIdFor(occurrenceId), view.now, alone, representing?.members);
  if (verdict[0]?.type !== 'OccurrenceAdmitted') return none(verdict);
  const partition = partitionOf(policy, occurrence.input);
  if (!partition.ok) {
    const evidence = { pointer: policy.partitionPointer, problem: partition.problem };
    const members = representing ? { members: [...representing.members] } : {};
    const data = {
      occurrenceId,
      reason: 'guard_fault' as const,
      evidence: { ...evidence, ...members },
      decidedAt: view.now,
    };
    return none([{ type: 'OccurrenceBlocked', data }]);
  }
  const streamId = batchStream(tenant, triggerId, triggerRevision, partition.key);
  const read = (c: MissionCounters): BatchPartitionState => {
    const found = c.batches?.get(streamId);
    if (!found) throw new IllegalStateError('BA-1: the partition of a batching Occurrence was not read');
    return found;
  };
  let step = none([]);
  let current = counters;
  const add = (next: AdmissionStep) => {
    step = combine(step, next);
    current = countersAfter(current, next);
  };
  // Its acceptance reached the deadline, so the batch was due before this member came (never early, BA-1).
  if (closeCauseAt(read(current), acceptedAt) === 'max_wait') add(closeBatch(streamId, 'max_wait', view, current));
  const joined: BatchMemberRead = {
    occurrence,
    streamId: occurrenceStream(occurrenceId),
    expected: null,
    ...(representing ? { coalesced: [...representing.members] } : {}),
  };
  const events = joinBatch(
    {
      streamId,
      tenant,
      triggerId,
      triggerRevision,
      missionId,
      policy,
      partition,
      member: { occurrenceId, streamId: joined.streamId },
      acceptedAt,
      ...(representing ? { representative: true } : {}),
    },
    read(current),
  );
  // Already a member of the open batch (a replayed admission of its observation): nothing to do.
  if (events.length === 0) return step;
  const batchId = events.find((e) => e.type === 'BatchMemberAdded')!.data.batchId;
  const join = occurrenceDecider.decide(
    {
      type: 'JoinBatch',
      occurrenceId,
      batchId,
      batchStreamId: streamId,
      at: view.now,
      ...(representing ? { coalesced: representing.members, causal: occurrence.causal } : {}),
    },
    state,
  );
  if (isRejection(join)) throw new CommandRejected(join);
  add({
    ...none(join),
    // AD-4: a wanted member is its resource's newest sighting, as an admission would be.
    baseline: target ? advanceBaseline(occurrence, target, trigger, view.now, current) : null,
    batch: { streamId, events },
    joined,
  });
  if (closeCauseAt(read(current), acceptedAt) === 'size') add(closeBatch(streamId, 'size', view, current));
  return step;
}

/**
 * BA-1: a due batch's one decision, made by the admission policy for the batch as one unit: the first member's
 * binding (Trigger revision, Mission, trust; keys were checked per member as they joined) with every
 * member's resources and inputs and the causality of all of them (CA-1/CA-3, `mergedLink`: the deepest member's
 * depth, the union of their ancestries, which the execution's Operations pass on to their callbacks), against the
 * Trigger and Mission as they are now and the counters (overlap, budget, concurrency) for one execution. Admitted:
 * every member is `batched` with the execution, whose request (members in acceptance order) rides on the first
 * member's decision. Blocked (e.g. `budget_exhausted`, `mission_paused`): every member is blocked with that reason.
 */
export function closeBatch(
  streamId: string,
  cause: BatchCloseCause,
  view: AdmissionView,
  counters: MissionCounters,
): AdmissionStep {
  const open = counters.batches?.get(streamId)?.open;
  if (!open) throw new IllegalStateError('BA-1: no open batch to close');
  const reads = acceptanceOrder(open.members).map((m) => {
    const read = counters.batchMembers?.get(m.occurrenceId);
    if (!read) throw new IllegalStateError('BA-1: a member of the batch to close was not read');
    return read;
  });
  const all = reads.map((read) => read.occurrence);
  // OP-2: a coalesced group's representative names its group on its decision, so its view shows the group.
  const groupOf = new Map(
    reads.flatMap((r) => (r.coalesced ? [[r.occurrence.occurrenceId, r.coalesced] as const] : [])),
  );
  const group = (occurrenceId: string) => {
    const coalesced = groupOf.get(occurrenceId);
    return coalesced ? { coalesced: [...coalesced] } : {};
  };
  const { batchId } = open;
  const decidedAt = view.now;
  // WH-3/AD-2: a member whose authenticating key was retired while the batch was open is blocked `key_revoked` on its
  // own (the check a coalescing group's close makes, `factsFor`); the others are decided as the batch.
  const revoked = all.filter((m) => keyRevokedNow(m, view));
  const revokedDecisions = revoked.map((m) => {
    const { sourceId = null, keyId = null, keyGeneration = null } = m.auth;
    const data = {
      occurrenceId: m.occurrenceId,
      reason: 'key_revoked' as const,
      evidence: { sourceId, keyId, keyGeneration, batchId },
      decidedAt,
    };
    return { occurrenceId: m.occurrenceId, events: [{ type: 'OccurrenceBlocked', data } as OccurrenceEvent] };
  });
  const members = all.filter((m) => !revoked.includes(m));
  if (members.length === 0) return keyRevokedBatch(streamId, cause, all, revokedDecisions, open, decidedAt);
  const opener = members[0]!;
  const ids = members.map((m) => m.occurrenceId);
  // CA-1/CA-3: the one execution runs for every member, so it carries all their causes, not the first one's only.
  const causal = mergedLink(members.map((m) => m.causal));
  const whole: ObservedState = {
    status: 'observed',
    occurrence: {
      ...opener,
      causal,
      // Each member's authenticating key was checked when it joined (its source is not read for a later close).
      auth: { state: opener.auth.state },
      input: { members: members.map((m) => m.input) },
      resourceRefs: [...new Set(members.flatMap((m) => m.resourceRefs))],
    },
    conflictingDigests: [],
  };
  const trigger = view.triggers.get(opener.triggerId)!;
  const asOne = { ...view, triggers: new Map(view.triggers).set(opener.triggerId, wholeBatchTrigger(trigger)) };
  const admitted = admissionStep(whole, asOne, counters);
  const first = admitted.decision[0]!;
  const executionId = first.type === 'OccurrenceAdmitted' ? first.data.executionId : null;
  let decisions: { occurrenceId: string; events: OccurrenceEvent[] }[];
  if (first.type === 'OccurrenceAdmitted') {
    const request = { ...first.data.request, members: ids, depth: causal.depth };
    decisions = ids.map((occurrenceId, i) => ({
      occurrenceId,
      events: [
        {
          type: 'OccurrenceBatched',
          data: {
            occurrenceId,
            executionId: executionId!,
            batchId,
            decidedAt,
            ...(i === 0 ? { request } : {}),
            ...group(occurrenceId),
          },
        },
      ],
    }));
  } else {
    const refused = first as Extract<OccurrenceEvent, { type: 'OccurrenceBlocked' | 'OccurrenceSuppressed' }>;
    // OP-2: `members` is the batch's ids, on its first member's decision (as an admitted batch's request is), so a
    // blocked batch of n members records n ids once, not n times.
    decisions = ids.map((occurrenceId, i) => {
      const evidence = {
        ...refused.data.evidence,
        batchId,
        ...(i === 0 ? { members: ids } : {}),
        ...group(occurrenceId),
      };
      const data = { occurrenceId, reason: refused.data.reason, evidence, decidedAt };
      return { occurrenceId, events: [{ type: 'OccurrenceBlocked', data }] };
    });
  }
  const reason = executionId ? null : (first.data as { reason: BatchClosed['data']['reason'] }).reason;
  const closed = batchClosed(open, cause, all, executionId, reason, decidedAt);
  return {
    decision: [],
    consumed: admitted.consumed,
    slot: admitted.slot,
    overlap: admitted.overlap,
    baseline: null,
    executionId,
    batch: { streamId, events: [closed] },
    members: [...decisions, ...revokedDecisions],
  };
}

/** The batch stream's record of its close: every member in acceptance order, and what became of them. */
function batchClosed(
  open: { batchId: string; seq: number; openedRevision: number },
  cause: BatchCloseCause,
  all: readonly ObservedOccurrence[],
  executionId: string | null,
  reason: BatchClosed['data']['reason'],
  closedAt: string,
): BatchClosed {
  const { batchId, seq, openedRevision } = open;
  const members = all.map((m) => m.occurrenceId);
  const outcome = executionId ? 'admitted' : 'blocked';
  return {
    type: 'BatchClosed',
    data: { batchId, seq, openedRevision, cause, members, outcome, executionId, reason, closedAt },
  };
}

/** WH-3/AD-2: the member's authenticating key, read now, is retired (a source not read counts as retired). */
function keyRevokedNow(member: ObservedOccurrence, view: AdmissionView): boolean {
  const key = authenticatingKey(member);
  if (!key) return false;
  const source = view.sources.get(key.sourceId);
  if (!source) throw new IllegalStateError('WH-3: the source of a batch member to close was not read');
  return isKeyRetired(source, key.keyId);
}

/** Every member's key was retired while the batch was open: nothing runs, each is blocked `key_revoked`. */
function keyRevokedBatch(
  streamId: string,
  cause: BatchCloseCause,
  all: readonly ObservedOccurrence[],
  decisions: { occurrenceId: string; events: OccurrenceEvent[] }[],
  open: { batchId: string; seq: number; openedRevision: number },
  closedAt: string,
): AdmissionStep {
  const ids = all.map((m) => m.occurrenceId);
  const closed = batchClosed(open, cause, all, null, 'key_revoked', closedAt);
  // OP-2: the batch's ids on its first member's decision, as for any batch blocked at its close.
  const named = decisions.map((d, i) => {
    if (i > 0) return d;
    const blocked = d.events[0] as Extract<OccurrenceEvent, { type: 'OccurrenceBlocked' }>;
    const evidence = { ...blocked.data.evidence, members: ids };
    return { ...d, events: [{ ...blocked, data: { ...blocked.data, evidence } }] };
  });
  return { ...none([]), batch: { streamId, events: [closed] }, members: named };
}

/** Guard, prefilters and the lane key were about each member and ran when it joined; the batch is decided once. */
function wholeBatchTrigger(trigger: TriggerState): TriggerState {
  if (trigger.status !== 'defined') return trigger;
  return { ...trigger, definition: { ...trigger.definition, guard: null, prefilters: [], queueByPointer: null } };
}

function combine(a: AdmissionStep, b: AdmissionStep): AdmissionStep {
  const batch =
    a.batch || b.batch
      ? { streamId: (b.batch ?? a.batch)!.streamId, events: [...(a.batch?.events ?? []), ...(b.batch?.events ?? [])] }
      : undefined;
  const members = [...(a.members ?? []), ...(b.members ?? [])];
  const joined = b.joined ?? a.joined;
  return {
    decision: [...a.decision, ...b.decision],
    consumed: [...a.consumed, ...b.consumed],
    slot: [...a.slot, ...b.slot],
    overlap: [...a.overlap, ...b.overlap],
    baseline: b.baseline ?? a.baseline,
    executionId: b.executionId ?? a.executionId,
    ...(batch ? { batch } : {}),
    ...(members.length > 0 ? { members } : {}),
    ...(joined ? { joined } : {}),
  };
}
