import type { DomainEvent } from '../shared/decider.js';
import type { DedupeIdentity } from '../dedupe/dedupe-identity.js';
import type { ReasonCode } from '../admission/reasons.js';
import type { DeliveryPolicy } from '../execution/delivery-policy.js';

export type OccurrenceKind = 'manual' | 'schedule' | 'webhook' | 'poll';

/** OC-2 auth state: `verified` names the source key that authenticated it, never the secret. */
export interface OccurrenceAuth {
  state: 'verified' | 'unverified' | 'internal';
  sourceId?: string | null;
  keyId?: string | null;
  keyGeneration?: number | null;
}

/** CA-1/CA-2: bounded references to causes; `unknown` when a correlation could not be verified. */
export type CausalAncestry = Array<{ occurrenceId?: string; operationId?: string; triggerId: string }> | 'unknown';

export interface CausalLink {
  parentId: string | null;
  depth: number;
  ancestry: CausalAncestry;
}

/** The evidence of one logical event for one Trigger revision (OC-2). */
export interface ObservedOccurrence {
  occurrenceId: string;
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  kind: OccurrenceKind;
  auth: OccurrenceAuth;
  externalId: string | null;
  dedupeIdentity: DedupeIdentity;
  dedupeHash: string;
  /** SHA-256 of the canonical JSON of the parsed payload: decides duplicate vs payload_conflict. */
  payloadDigest: string;
  input: unknown;
  resourceRefs: string[];
  classification: string;
  scheduledAt: string | null;
  causal: CausalLink;
  observedAt: string;
}

/** What a downstream consumer receives once admitted (EX-1): written in the same event as the decision. */
export interface ExecutionRequest {
  executionId: string;
  tenant: string;
  missionId: string;
  triggerId: string;
  triggerRevision: number;
  occurrenceId: string;
  input: unknown;
  resourceRefs: string[];
  lane: string;
  scheduledAt: string | null;
  firedAt: string;
  limits: { maxConcurrent: number; maxExecutionsPerHour: number };
  /**
   * AD-2: when the execution takes its Mission concurrency slot. Absent on requests recorded before
   * claims took slots: those took theirs at admission.
   */
  slotTakenAt?: SlotTakenAt;
  /** BA-3: the execution holds its Trigger's overlap marker until it is terminal (absent: overlaps allowed). */
  overlap?: 'skip';
  /** EX-4: the admitting Trigger revision's delivery policy (absent on requests recorded before it existed: the defaults). */
  delivery?: DeliveryPolicy;
  /**
   * The Occurrence ids this one execution stands for, in acceptance order: BA-1 a closed batch's members (`input`
   * is then `{ members: [inputs…] }`), or DD-5 a coalesced group's members (its last member's own input).
   */
  members?: string[];
  /** CA-1: the Occurrence's recorded ancestry (references only); absent for a plain root and on older requests. */
  ancestry?: CausalAncestry;
  /**
   * CA-1/CA-3: the causal depth of an execution standing for several Occurrences (BA-1 a batch, DD-5 a coalesced
   * group): its deepest member's, `ancestry` then being the union of the members' (`mergedLink`). An Operation it
   * records links its callback at this depth + 1 with that ancestry. Absent: the Occurrence's own, as observed.
   */
  depth?: number;
}

export type SlotTakenAt = 'admission' | 'claim';

/** Read models never show the delivered payload, so they leave these paths out of their log reads. */
export const OCCURRENCE_PAYLOAD_PATHS: ReadonlyArray<readonly string[]> = [['input'], ['request', 'input']];

/** The first accepted delivery of an identity (OC-3): appended with expected revision "no stream". */
export type OccurrenceObserved = DomainEvent<'OccurrenceObserved', ObservedOccurrence>;

/** AD-1: admitted once, with the execution request in the same append (EX-1). */
export type OccurrenceAdmitted = DomainEvent<
  'OccurrenceAdmitted',
  {
    occurrenceId: string;
    executionId: string;
    firedAt: string;
    request: ExecutionRequest;
    decidedAt: string;
    /** AD-4: what each prefilter found when all passed (a first sighting is recorded with `baseline: null`). */
    prefilters?: Record<string, unknown>[];
    /** DD-5: admitted as the last member of a coalesced group: every member's id in acceptance order. */
    members?: string[];
  }
>;

/** AD-1: blocked once, with a stable reason (AD-3) and evidence. */
export type OccurrenceBlocked = DomainEvent<
  'OccurrenceBlocked',
  { occurrenceId: string; reason: ReasonCode; evidence: Record<string, unknown>; decidedAt: string }
>;

/**
 * AD-1: decided once, starting nothing and waking no one: a guard was false (BA-2) or a prefilter terminated
 * (AD-4). Distinct from blocked: the Occurrence was not wanted, no rule refused it.
 */
export type OccurrenceSuppressed = DomainEvent<
  'OccurrenceSuppressed',
  { occurrenceId: string; reason: ReasonCode; evidence: Record<string, unknown>; decidedAt: string }
>;

/**
 * BA-1: the Occurrence joined an open batch (not a decision: it stays `observed` until the batch closes). On its own
 * stream, at the revision read, so a replayed admission cannot put it into a second batch.
 */
export type OccurrenceBatchJoined = DomainEvent<
  'OccurrenceBatchJoined',
  {
    occurrenceId: string;
    batchId: string;
    batchStreamId: string;
    at: string;
    /** DD-5: joined as a closed coalescing group's last member, standing for these (ids in acceptance order). */
    coalesced?: string[];
    /** CA-1/CA-3 with `coalesced`: the group's causality (`mergedLink` of its members'), which its batch carries. */
    causal?: CausalLink;
  }
>;

/**
 * AD-1/BA-1: decided as a member of a closed batch whose one execution was admitted. The first member's event
 * carries the execution request (EX-1: appended with every member's decision and the `BatchClosed`).
 */
export type OccurrenceBatched = DomainEvent<
  'OccurrenceBatched',
  {
    occurrenceId: string;
    executionId: string;
    batchId: string;
    decidedAt: string;
    request?: ExecutionRequest;
    /** DD-5 (OP-2): decided as a coalesced group's representative: the group's members in acceptance order. */
    coalesced?: string[];
  }
>;

/**
 * SU-1: decided once by delivery to wait-for subscriptions active at its acceptance, instead of admission: it
 * consumes the delivery identity and starts nothing; the waiting executions learn of it from their subscriptions.
 */
export type OccurrenceSubscribed = DomainEvent<
  'OccurrenceSubscribed',
  {
    occurrenceId: string;
    evidence: { subscriptions: Array<{ subscriptionId: string; executionId: string }> };
    decidedAt: string;
  }
>;

/**
 * DD-5: the Occurrence joined a coalescing group and waits for it to close; not a decision. Appended at the
 * Occurrence stream's revision, so an Occurrence joins one group once whoever races to put it there.
 */
export type OccurrenceHeldForCoalescing = DomainEvent<
  'OccurrenceHeldForCoalescing',
  { occurrenceId: string; groupStream: string; groupId: string; closesAt: string; at: string }
>;

/**
 * DD-5, AD-1: decided once, as an earlier member of a closed group: the group's last member in acceptance
 * order stands for it (`evidence.coalescedInto`). Starts nothing.
 */
export type OccurrenceCoalesced = DomainEvent<
  'OccurrenceCoalesced',
  { occurrenceId: string; reason: 'coalesced'; evidence: { coalescedInto: string; groupId: string }; decidedAt: string }
>;

/** OC-4: a later delivery of the same identity carried another payload; it starts nothing. */
export type DeliveryConflictRecorded = DomainEvent<
  'DeliveryConflictRecorded',
  { occurrenceId: string; conflictingDigest: string; at: string }
>;

export type OccurrenceEvent =
  | OccurrenceObserved
  | OccurrenceAdmitted
  | OccurrenceBlocked
  | OccurrenceSuppressed
  | OccurrenceBatchJoined
  | OccurrenceBatched
  | OccurrenceSubscribed
  | OccurrenceHeldForCoalescing
  | OccurrenceCoalesced
  | DeliveryConflictRecorded;

/** The events that carry an execution request: an admission, or the first member's decision of a batch (BA-1). */
export function requestCarriedBy(event: { type: string; data: unknown }): ExecutionRequest | null {
  if (event.type !== 'OccurrenceAdmitted' && event.type !== 'OccurrenceBatched') return null;
  return (event.data as { request?: ExecutionRequest }).request ?? null;
}

/** AD-1: the events that decide an Occurrence; exactly one of them per Occurrence stream. */
export const OCCURRENCE_DECISION_TYPES: readonly OccurrenceEvent['type'][] = [
  'OccurrenceAdmitted',
  'OccurrenceBlocked',
  'OccurrenceSuppressed',
  'OccurrenceBatched',
  'OccurrenceCoalesced',
  'OccurrenceSubscribed',
];
