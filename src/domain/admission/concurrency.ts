import type { Decider, DomainEvent } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';

/** AD-2 max concurrency: every event carries the count it leaves, so reading only the last one stays O(1). */
export interface ConcurrencyState {
  running: number;
}

interface SlotData {
  tenant: string;
  missionId: string;
  running: number;
  at: string;
}

/** Why a slot came back: the execution ended, or its attempt ended and it waits for a retry (EX-4). */
export type SlotReleaseReason = 'completed' | 'noncommitted' | 'retrying' | 'dead_lettered';

/** Admissions took slots: appended with them at the revision read, so slots are serialized per Mission. */
export type ExecutionSlotsTaken = DomainEvent<'ExecutionSlotsTaken', SlotData & { executionIds: string[] }>;
/** An execution reached a terminal state (completed, or settled as noncommitted) and gave its slot back. */
export type ExecutionSlotReleased = DomainEvent<
  'ExecutionSlotReleased',
  SlotData & { executionId: string; why: SlotReleaseReason }
>;
export type ConcurrencyEvent = ExecutionSlotsTaken | ExecutionSlotReleased;

export type ConcurrencyCommand =
  | { type: 'TakeSlot'; tenant: string; missionId: string; executionId: string; limit: number; at: string }
  | {
      type: 'ReleaseSlot';
      tenant: string;
      missionId: string;
      executionId: string;
      why: SlotReleaseReason;
      at: string;
    };

export const initialConcurrencyState: ConcurrencyState = { running: 0 };

export function evolveConcurrency(_state: ConcurrencyState, event: ConcurrencyEvent): ConcurrencyState {
  switch (event.type) {
    case 'ExecutionSlotsTaken':
    case 'ExecutionSlotReleased':
      return { running: event.data.running };
    default: {
      const _: never = event;
      return _state;
    }
  }
}

/**
 * Re-checks the limit: two admitters may have read the same count, and the loser's append conflicts.
 * A release is floored at zero; the execution stream already makes each release happen once.
 */
export function decideConcurrency(
  command: ConcurrencyCommand,
  state: ConcurrencyState,
): ConcurrencyEvent[] | Rejection<'concurrency_limit'> {
  const { tenant, missionId, executionId, at } = command;
  switch (command.type) {
    case 'TakeSlot':
      if (state.running >= command.limit)
        return reject('concurrency_limit', { detail: `${state.running} of ${command.limit} executions are running` });
      return [
        {
          type: 'ExecutionSlotsTaken',
          data: { tenant, missionId, executionIds: [executionId], running: state.running + 1, at },
        },
      ];
    case 'ReleaseSlot':
      return [
        {
          type: 'ExecutionSlotReleased',
          data: { tenant, missionId, executionId, running: Math.max(0, state.running - 1), at, why: command.why },
        },
      ];
    default: {
      const _: never = command;
      return [];
    }
  }
}

export function mergeSlotsTaken(events: readonly ConcurrencyEvent[]): ConcurrencyEvent[] {
  const taken = events.filter((e): e is ExecutionSlotsTaken => e.type === 'ExecutionSlotsTaken');
  if (taken.length !== events.length) throw new IllegalStateError('only slots taken together can be merged');
  if (taken.length <= 1) return [...taken];
  const last = taken[taken.length - 1]!.data;
  return [{ type: 'ExecutionSlotsTaken', data: { ...last, executionIds: taken.flatMap((e) => e.data.executionIds) } }];
}

export const concurrencyDecider: Decider<ConcurrencyState, ConcurrencyEvent, ConcurrencyCommand> = {
  initialState: initialConcurrencyState,
  evolve: evolveConcurrency,
  decide: decideConcurrency,
};
