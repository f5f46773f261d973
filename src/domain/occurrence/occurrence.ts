import type { Decider } from '../shared/decider.js';
import { IllegalStateError, ValidationError } from '../shared/errors.js';
import type { Rejection } from '../shared/result.js';
import { admissionPolicy, type AdmissionFacts } from '../admission/admission-policy.js';
import { budgetWindowStart } from '../admission/budget.js';
import type { ReasonCode } from '../admission/reasons.js';
import { dedupeIdentityHash } from '../dedupe/dedupe-identity.js';
import type { Use } from '../dedupe/dedupe-window.js';
import { parseRfc3339 } from '../schedule/index.js';
import type { CausalLink, ObservedOccurrence, OccurrenceEvent } from './occurrence-events.js';

/** OC-4: distinct conflicting payloads recorded per Occurrence; later ones are not recorded. */
export const MAX_RECORDED_CONFLICTS = 20;

export type OccurrenceState =
  | { status: 'absent' }
  | {
      status: 'observed';
      occurrence: ObservedOccurrence;
      conflictingDigests: string[];
      /**
       * BA-1: the open batch it joined; its decision comes when that batch closes. DD-5 `causal`: joined for a
       * coalesced group, the group's causality (CA-1), which the batch carries in place of its own.
       */
      batch?: { batchId: string; streamId: string; causal?: CausalLink; coalesced?: string[] };
      /** DD-5: waiting in a coalescing group, which decides it when it closes (absent: not in one). */
      held?: CoalesceHold;
    }
  | {
      status: 'decided';
      occurrence: ObservedOccurrence;
      conflictingDigests: string[];
      decision: OccurrenceDecision;
      executionId: string | null;
      reason: ReasonCode | null;
      decidedAt: string;
    };

/** AD-1: what an Occurrence was decided as (BA-2/AD-4 suppression is not a block, DD-5 coalescing neither). */
export type OccurrenceDecision = 'admitted' | 'blocked' | 'suppressed' | 'batched' | 'coalesced' | 'subscribed';

/** DD-5: the group an observed Occurrence waits in. */
export interface CoalesceHold {
  groupStream: string;
  groupId: string;
}

/** Record a delivery as an Occurrence, or as a duplicate / payload conflict of an existing one. */
export type ObserveOccurrence = { type: 'ObserveOccurrence' } & ObservedOccurrence;

/** Decide an observed Occurrence once (AD-1); `executionId` is pre-generated, `now` is the store clock. */
export interface AdmitOccurrence {
  type: 'AdmitOccurrence';
  occurrenceId: string;
  executionId: string;
  now: string;
  facts: AdmissionFacts;
  /** DD-5: deciding the last member of a closing group, which stands for these (ids in acceptance order). */
  members?: string[];
}

/** DD-5: join a coalescing group (not a decision); the group's close decides it. */
export interface HoldForCoalescing {
  type: 'HoldForCoalescing';
  occurrenceId: string;
  groupStream: string;
  groupId: string;
  closesAt: string;
  at: string;
}

/** DD-5: decided as an earlier member of a closing group, coalesced into its last member. */
export interface CoalesceOccurrence {
  type: 'CoalesceOccurrence';
  occurrenceId: string;
  groupId: string;
  coalescedInto: string;
  at: string;
}

/**
 * BA-1: join an open batch (not a decision; the batch's close decides it). DD-5: a held Occurrence joins only as
 * its closed group's last member, naming the group's members.
 */
export interface JoinBatch {
  type: 'JoinBatch';
  occurrenceId: string;
  batchId: string;
  batchStreamId: string;
  at: string;
  /** DD-5: the closing group's members in acceptance order, the last being this Occurrence. */
  coalesced?: string[];
  /** CA-1/CA-3 with `coalesced`: the group's causality (`mergedLink` of its members'). */
  causal?: CausalLink;
}

export type OccurrenceCommand =
  ObserveOccurrence | AdmitOccurrence | HoldForCoalescing | CoalesceOccurrence | JoinBatch;

export const initialOccurrenceState: OccurrenceState = { status: 'absent' };

export function evolveOccurrence(state: OccurrenceState, event: OccurrenceEvent): OccurrenceState {
  switch (event.type) {
    case 'OccurrenceObserved':
      return { status: 'observed', occurrence: event.data, conflictingDigests: [] };
    case 'DeliveryConflictRecorded':
      return state.status === 'absent'
        ? state
        : { ...state, conflictingDigests: [...state.conflictingDigests, event.data.conflictingDigest] };
    case 'OccurrenceAdmitted':
      if (state.status !== 'observed') return state;
      return {
        ...withoutHold(state),
        status: 'decided',
        decision: 'admitted',
        executionId: event.data.executionId,
        reason: null,
        decidedAt: event.data.decidedAt,
      };
    case 'OccurrenceBatchJoined': {
      if (state.status !== 'observed') return state;
      // DD-5: a group's representative leaves its (closed) group for its batch, which decides it now.
      const { held: _held, ...rest } = state;
      const { batchId, batchStreamId: streamId, causal, coalesced } = event.data;
      const group = { ...(causal ? { causal } : {}), ...(coalesced ? { coalesced } : {}) };
      return { ...rest, batch: { batchId, streamId, ...group } };
    }
    case 'OccurrenceBatched':
      if (state.status !== 'observed') return state;
      return {
        ...withoutHold(state),
        status: 'decided',
        decision: 'batched',
        executionId: event.data.executionId,
        reason: null,
        decidedAt: event.data.decidedAt,
      };
    case 'OccurrenceHeldForCoalescing':
      if (state.status !== 'observed') return state;
      return { ...state, held: { groupStream: event.data.groupStream, groupId: event.data.groupId } };
    case 'OccurrenceBlocked':
    case 'OccurrenceSuppressed':
    case 'OccurrenceCoalesced':
      if (state.status !== 'observed') return state;
      return {
        ...withoutHold(state),
        status: 'decided',
        decision: refusalDecision(event.type),
        executionId: null,
        reason: event.data.reason,
        decidedAt: event.data.decidedAt,
      };
    case 'OccurrenceSubscribed':
      if (state.status !== 'observed') return state;
      return {
        ...withoutHold(state),
        status: 'decided',
        decision: 'subscribed',
        executionId: null,
        reason: null,
        decidedAt: event.data.decidedAt,
      };
    default: {
      const _: never = event;
      return state;
    }
  }
}

const refusalDecision = (type: 'OccurrenceBlocked' | 'OccurrenceSuppressed' | 'OccurrenceCoalesced') =>
  type === 'OccurrenceBlocked' ? 'blocked' : type === 'OccurrenceSuppressed' ? 'suppressed' : 'coalesced';

/** A decided Occurrence waits in no batch (BA-1) or coalescing group (DD-5) any more. */
function withoutHold(state: Extract<OccurrenceState, { status: 'observed' }>) {
  const { held: _held, batch: _batch, ...rest } = state;
  return rest;
}

/** The handler answers `duplicate` or `payload_conflict` (OC-3, OC-4) from this, since `decide` returns only events. */
export function classifyDelivery(
  state: OccurrenceState,
  payloadDigest: string,
): 'new' | 'duplicate' | 'payload_conflict' {
  if (state.status === 'absent') return 'new';
  return state.occurrence.payloadDigest === payloadDigest ? 'duplicate' : 'payload_conflict';
}

/**
 * OC-3/OC-4: the first delivery is observed; the same payload again is a duplicate ([]); another
 * payload is recorded once per distinct digest, up to MAX_RECORDED_CONFLICTS, and starts nothing.
 */
export function observeOccurrence(command: ObserveOccurrence, state: OccurrenceState): OccurrenceEvent[] {
  const { type: _type, ...observed } = command;
  if (dedupeIdentityHash(observed.dedupeIdentity) !== observed.dedupeHash)
    throw new ValidationError('dedupeHash does not match dedupeIdentity');
  if (observed.dedupeIdentity.tenant !== observed.tenant || observed.dedupeIdentity.triggerId !== observed.triggerId) {
    throw new ValidationError('the dedupe identity names another tenant or Trigger');
  }
  switch (classifyDelivery(state, observed.payloadDigest)) {
    case 'new':
      return [{ type: 'OccurrenceObserved', data: observed }];
    case 'duplicate':
      return [];
    case 'payload_conflict': {
      if (state.status === 'absent') return [];
      const known = state.conflictingDigests;
      if (known.includes(observed.payloadDigest) || known.length >= MAX_RECORDED_CONFLICTS) return [];
      return [
        {
          type: 'DeliveryConflictRecorded',
          data: {
            occurrenceId: state.occurrence.occurrenceId,
            conflictingDigest: observed.payloadDigest,
            at: observed.observedAt,
          },
        },
      ];
    }
  }
}

/** AD-1: decided once; a second admission attempt returns []. Absent is a handler bug. */
export function admitOccurrence(command: AdmitOccurrence, state: OccurrenceState): OccurrenceEvent[] {
  if (state.status === 'decided') return [];
  if (state.status === 'absent') throw new IllegalStateError('occurrence not observed');
  const occurrence = state.occurrence;
  if (occurrence.occurrenceId !== command.occurrenceId)
    throw new IllegalStateError('the command names another Occurrence than the stream holds');
  if (command.facts.budget.windowStart !== budgetWindowStart(command.now))
    throw new IllegalStateError('budget facts are for another window');
  if (occurrence.scheduledAt !== null && compareInstants(command.now, occurrence.scheduledAt) < 0) {
    throw new IllegalStateError('SC-4: a scheduled occurrence is never admitted before its intended instant');
  }
  if (state.held && !command.members)
    throw new IllegalStateError('DD-5: an Occurrence held in a coalescing group is decided by its close');
  const verdict = admissionPolicy(occurrence, command.facts);
  const { occurrenceId } = occurrence;
  const decidedAt = command.now;
  const members = command.members ? { members: [...command.members] } : {};
  if (!verdict.admitted) {
    const evidence = { ...verdict.evidence, ...members };
    const data = { occurrenceId, reason: verdict.reason, evidence, decidedAt };
    return [
      verdict.outcome === 'suppressed' ? { type: 'OccurrenceSuppressed', data } : { type: 'OccurrenceBlocked', data },
    ];
  }
  const { executionId, now: firedAt } = command;
  const { tenant, missionId, triggerId, triggerRevision, input, resourceRefs, scheduledAt } = occurrence;
  // CA-1: a consumer sees the chain its work descends from; a plain root's request stays as it always was.
  const ancestry = occurrence.causal?.ancestry ?? [];
  const request = {
    executionId,
    tenant,
    missionId,
    triggerId,
    triggerRevision,
    occurrenceId,
    input,
    resourceRefs,
    lane: verdict.lane,
    scheduledAt,
    firedAt,
    limits: verdict.limits,
    slotTakenAt: verdict.slotTakenAt,
    delivery: verdict.delivery,
    ...(verdict.overlap ? { overlap: verdict.overlap } : {}),
    ...(ancestry === 'unknown' || ancestry.length > 0 ? { ancestry } : {}),
    // CA-3: a group's representative runs for every member: the deepest one's depth, the union of their chains.
    ...(command.members ? { depth: occurrence.causal?.depth ?? 0 } : {}),
    ...members,
  };
  const prefilters = verdict.prefilters ? { prefilters: verdict.prefilters } : {};
  return [
    {
      type: 'OccurrenceAdmitted',
      data: {
        occurrenceId,
        executionId,
        firedAt,
        request,
        decidedAt,
        ...prefilters,
        ...(command.members ? { members: [...command.members] } : {}),
      },
    },
  ];
}

/** DD-5: joins once; the same group again is a retry ([]), another group or a decided Occurrence is a bug. */
export function holdForCoalescing(command: HoldForCoalescing, state: OccurrenceState): OccurrenceEvent[] {
  if (state.status !== 'observed' || state.occurrence.occurrenceId !== command.occurrenceId)
    throw new IllegalStateError('only an observed Occurrence joins a coalescing group');
  if (state.held?.groupId === command.groupId && state.held.groupStream === command.groupStream) return [];
  if (state.held) throw new IllegalStateError('the Occurrence already waits in another coalescing group');
  const { type: _type, ...data } = command;
  return [{ type: 'OccurrenceHeldForCoalescing', data }];
}

/** DD-5: only a member of the closing group is coalesced into it; decided once (a second attempt is []). */
export function coalesceOccurrence(command: CoalesceOccurrence, state: OccurrenceState): OccurrenceEvent[] {
  if (state.status === 'decided') return [];
  if (state.status !== 'observed' || state.held?.groupId !== command.groupId)
    throw new IllegalStateError('only a member of the closing group is coalesced into it');
  if (command.coalescedInto === command.occurrenceId)
    throw new IllegalStateError('the last member is decided by admission, not coalesced');
  const { occurrenceId, groupId, coalescedInto, at } = command;
  return [
    {
      type: 'OccurrenceCoalesced',
      data: { occurrenceId, reason: 'coalesced', evidence: { coalescedInto, groupId }, decidedAt: at },
    },
  ];
}

/**
 * BA-1: joins one batch once (the same batch again is a retry, []); a decided Occurrence joins nothing. DD-5: one
 * held in a coalescing group joins only as that group's representative (its last member), so no coalesced
 * Occurrence is ever a batch member.
 */
export function joinOccurrenceBatch(command: JoinBatch, state: OccurrenceState): OccurrenceEvent[] {
  if (state.status === 'decided') return [];
  if (state.status !== 'observed' || state.occurrence.occurrenceId !== command.occurrenceId)
    throw new IllegalStateError('only an observed Occurrence joins a batch');
  if (state.batch?.batchId === command.batchId) return [];
  if (state.batch) throw new IllegalStateError('BA-1: the Occurrence already waits in another batch');
  const { coalesced } = command;
  if (state.held && (!coalesced || coalesced[coalesced.length - 1] !== command.occurrenceId))
    throw new IllegalStateError("DD-5: a held Occurrence joins a batch only as its closed group's last member");
  if (!state.held && coalesced) throw new IllegalStateError('DD-5: only a held Occurrence stands for a group');
  const { occurrenceId, batchId, batchStreamId, at, causal } = command;
  const data = {
    occurrenceId,
    batchId,
    batchStreamId,
    at,
    ...(coalesced ? { coalesced: [...coalesced] } : {}),
    ...(coalesced && causal ? { causal } : {}),
  };
  return [{ type: 'OccurrenceBatchJoined', data }];
}

export function decideOccurrence(command: OccurrenceCommand, state: OccurrenceState): OccurrenceEvent[] | Rejection {
  switch (command.type) {
    case 'ObserveOccurrence':
      return observeOccurrence(command, state);
    case 'AdmitOccurrence':
      return admitOccurrence(command, state);
    case 'HoldForCoalescing':
      return holdForCoalescing(command, state);
    case 'CoalesceOccurrence':
      return coalesceOccurrence(command, state);
    case 'JoinBatch':
      return joinOccurrenceBatch(command, state);
    default: {
      const _: never = command;
      throw new IllegalStateError('unknown occurrence command');
    }
  }
}

export const occurrenceDecider: Decider<OccurrenceState, OccurrenceEvent, OccurrenceCommand> = {
  initialState: initialOccurrenceState,
  evolve: evolveOccurrence,
  decide: decideOccurrence,
};

function compareInstants(a: string, b: string): number {
  const [x, y] = [parseRfc3339(a), parseRfc3339(b)];
  if (x === null || y === null) throw new ValidationError(`not an RFC 3339 instant: ${x === null ? a : b}`);
  return x - y;
}

/** DD-4: what the dedupe window reads of one use of an identity. */
export function useOf(state: OccurrenceState): Use {
  return state.status === 'decided' ? { status: 'decided', decidedAt: state.decidedAt } : { status: state.status };
}
