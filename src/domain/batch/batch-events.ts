import type { DomainEvent } from '../shared/decider.js';
import type { ReasonCode } from '../admission/reasons.js';

/** BA-1: a partition value as found at `partitionPointer` (null: no pointer, or nothing there). */
export type PartitionValue = string | number | boolean | null;

/** Where a batch's member lives: its decision is appended to that Occurrence stream when the batch closes. */
export interface BatchMember {
  occurrenceId: string;
  streamId: string;
}

/** A member as its batch holds it: `at` is its acceptance into the batch (DD-5: a representative's, its group's close). */
export interface OpenBatchMember extends BatchMember {
  at: string;
  /** DD-5: joined as a closed coalescing group's representative, when the group closed (not when it was accepted). */
  representative?: true;
}

export interface OpenBatch {
  batchId: string;
  seq: number;
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  partition: PartitionValue;
  /** The first member's acceptance (database clock): `maxWaitMs` counts from here (BA-1). */
  openedAt: string;
  /** openedAt + maxWaitMs; null when only `size` closes the batch. */
  deadline: string | null;
  size: number | null;
  /** The stream revision of this batch's `BatchOpened`: a loader reads from there, never the whole history. */
  openedRevision: number;
  /** In join order (the partition stream's); `acceptanceOrder` gives the order a close decides them in. */
  members: OpenBatchMember[];
}

/** One partition stream: the batch open now, if any, and how many batches it has had. */
export interface BatchPartitionState {
  /** The last batch's sequence number (0 before the first). */
  seq: number;
  open: OpenBatch | null;
  /** The revision the next event of this stream gets. */
  nextRevision: number;
}

export const initialBatchPartitionState: BatchPartitionState = { seq: 0, open: null, nextRevision: 0 };

export type BatchOpened = DomainEvent<
  'BatchOpened',
  Omit<OpenBatch, 'members'> & { partitionKey: string; maxWaitMs: number | null }
>;

export type BatchMemberAdded = DomainEvent<
  'BatchMemberAdded',
  BatchMember & {
    batchId: string;
    openedRevision: number;
    count: number;
    at: string;
    /** DD-5: a closed coalescing group's representative, joining at the group's close (`at`). */
    representative?: true;
  }
>;

/** Why a batch closed: it reached `size`, or its deadline passed (never before it, BA-1). */
export type BatchCloseCause = 'size' | 'max_wait';

/**
 * A closed batch, with its one decision: `admitted` (the execution named is requested in the same append, EX-1)
 * or `blocked` (every member is decided blocked with `reason`).
 */
export type BatchClosed = DomainEvent<
  'BatchClosed',
  {
    batchId: string;
    seq: number;
    openedRevision: number;
    cause: BatchCloseCause;
    members: string[];
    outcome: 'admitted' | 'blocked';
    executionId: string | null;
    reason: ReasonCode | null;
    closedAt: string;
  }
>;

export type BatchEvent = BatchOpened | BatchMemberAdded | BatchClosed;

export const BATCH_EVENT_TYPES: readonly BatchEvent['type'][] = ['BatchOpened', 'BatchMemberAdded', 'BatchClosed'];
