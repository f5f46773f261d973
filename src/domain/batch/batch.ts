import { canonicalJson } from '../shared/canonical-json.js';
import { hashId } from '../shared/ids.js';
import { IllegalStateError } from '../shared/errors.js';
import { resolvePointer } from '../shared/json-pointer.js';
import { type BatchPolicy, MAX_BATCH_SIZE } from '../trigger/trigger-blocks.js';
import {
  type BatchCloseCause,
  type BatchEvent,
  type BatchMember,
  type BatchPartitionState,
  initialBatchPartitionState,
  type OpenBatchMember,
  type PartitionValue,
} from './batch-events.js';

export function evolveBatchPartition(state: BatchPartitionState, event: BatchEvent): BatchPartitionState {
  const nextRevision = state.nextRevision + 1;
  switch (event.type) {
    case 'BatchOpened': {
      const { partitionKey: _key, maxWaitMs: _wait, ...open } = event.data;
      return { seq: open.seq, open: { ...open, members: [] }, nextRevision };
    }
    case 'BatchMemberAdded': {
      if (state.open?.batchId !== event.data.batchId) return { ...state, nextRevision };
      const { occurrenceId, streamId, at, representative } = event.data;
      const member = { occurrenceId, streamId, at, ...(representative ? { representative } : {}) };
      return { ...state, open: { ...state.open, members: [...state.open.members, member] }, nextRevision };
    }
    case 'BatchClosed':
      return { ...state, open: state.open?.batchId === event.data.batchId ? null : state.open, nextRevision };
    default: {
      const _: never = event;
      return state;
    }
  }
}

export const batchPartitionFolding = { initialState: initialBatchPartitionState, evolve: evolveBatchPartition };

/** BA-2: a partition key that is an object or array is a fault (`guard_fault`), never a partition. */
export type Partition = { ok: true; value: PartitionValue; key: string } | { ok: false; problem: string };

/** The partition an input belongs to; no pointer, a missing value or null: the Trigger's one default partition. */
export function partitionOf(policy: BatchPolicy, input: unknown): Partition {
  if (policy.partitionPointer === null) return { ok: true, value: null, key: 'null' };
  const found = resolvePointer(input, policy.partitionPointer);
  const value = found.found ? found.value : null;
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
    return { ok: true, value: value as PartitionValue, key: canonicalJson(value) };
  return { ok: false, problem: 'partition key is not a string, number or boolean' };
}

/**
 * BA-1 with DD-5: the order a closed batch's members are decided and listed in (`members`, `input`). Occurrences that
 * joined on their own keep their join order, which is the store's acceptance order (admission reaches them in log
 * order). A coalescing group's representative joins when its group closes, whenever a timer gets to it, so it is
 * placed by that close instant (`at`, from the store's times, never a payload's) among them, after any member
 * accepted at the same instant; representatives among themselves by `at`, then join order. Racing closers of two
 * groups therefore yield one order, whichever joined first.
 */
export function acceptanceOrder<M extends OpenBatchMember>(members: readonly M[]): M[] {
  const time = (m: M) => Date.parse(m.at);
  const direct = members.filter((m) => !m.representative);
  const representatives = members
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.representative)
    .sort((a, b) => time(a.m) - time(b.m) || a.i - b.i)
    .map(({ m }) => m);
  const ordered: M[] = [];
  let r = 0;
  for (const member of direct) {
    while (r < representatives.length && time(representatives[r]!) < time(member)) ordered.push(representatives[r++]!);
    ordered.push(member);
  }
  return [...ordered, ...representatives.slice(r)];
}

export const addMilliseconds = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/**
 * BA-1: due once the deadline is reached (at it, never before) or the batch is full: at its `size`, and a batch with
 * only `maxWaitMs` at MAX_BATCH_SIZE members (OC-5: a claim body and its `members` stay bounded, as `size` and a
 * coalescing group are), so the next member opens the next batch.
 */
export function closeCauseAt(state: BatchPartitionState, now: string): BatchCloseCause | null {
  const open = state.open;
  if (!open) return null;
  if (open.members.length >= (open.size ?? MAX_BATCH_SIZE)) return 'size';
  if (open.deadline !== null && Date.parse(now) >= Date.parse(open.deadline)) return 'max_wait';
  return null;
}

export interface JoinBatch {
  streamId: string;
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  policy: BatchPolicy;
  partition: Extract<Partition, { ok: true }>;
  member: BatchMember;
  /** The member's acceptance (its `observedAt`, database clock; DD-5 a representative's: its group's close). */
  acceptedAt: string;
  /** DD-5: joining as a closed coalescing group's representative. */
  representative?: boolean;
}

/**
 * BA-1: the member joins the open batch of its partition, or opens the next one. The caller closes a batch whose
 * deadline the member's acceptance reached first (the member then opens the next one), and a batch this join filled.
 * A member already in the open batch joins nothing (a replayed admission).
 */
export function joinBatch(command: JoinBatch, state: BatchPartitionState): BatchEvent[] {
  const { open } = state;
  if (open?.members.some((m) => m.occurrenceId === command.member.occurrenceId)) return [];
  if (open && closeCauseAt(state, command.acceptedAt) !== null)
    throw new IllegalStateError('BA-1: a due batch is closed before another member joins its partition');
  const events: BatchEvent[] = [];
  let batchId = open?.batchId;
  let openedRevision = open?.openedRevision;
  if (!open) {
    const seq = state.seq + 1;
    batchId = hashId(command.streamId, String(seq));
    openedRevision = state.nextRevision;
    const { size, maxWaitMs } = command.policy;
    events.push({
      type: 'BatchOpened',
      data: {
        batchId,
        seq,
        tenant: command.tenant,
        triggerId: command.triggerId,
        triggerRevision: command.triggerRevision,
        missionId: command.missionId,
        partition: command.partition.value,
        partitionKey: command.partition.key,
        openedAt: command.acceptedAt,
        deadline: maxWaitMs === null ? null : addMilliseconds(command.acceptedAt, maxWaitMs),
        size,
        maxWaitMs,
        openedRevision,
      },
    });
  }
  events.push({
    type: 'BatchMemberAdded',
    data: {
      batchId: batchId!,
      openedRevision: openedRevision!,
      ...command.member,
      count: (open?.members.length ?? 0) + 1,
      at: command.acceptedAt,
      ...(command.representative ? { representative: true as const } : {}),
    },
  });
  return events;
}
