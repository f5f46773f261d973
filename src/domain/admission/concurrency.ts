import type { Decider, DomainEvent } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';

/**
 * AD-2 max concurrency, one stripe of a Mission's slots (slot-stripes.ts): every event carries the count its
 * stream is left with, so reading only the last one stays O(1).
 */
export interface ConcurrencyState {
  running: number;
}

interface SlotData {
  tenant: string;
  missionId: string;
  /** The count this stripe's stream is left with. */
  running: number;
  /** Which of the Mission's slot stripes; absent in events written before slots were striped (stripe 0). */
  stripe?: number;
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

/** `limit` is what this stream may hold: a stripe's share of the Mission's maxConcurrent when `stripe` is set. */
export type ConcurrencyCommand =
  | {
      type: 'TakeSlot';
      tenant: string;
      missionId: string;
      executionId: string;
      limit: number;
      stripe?: number;
      at: string;
    }
  | {
      type: 'ReleaseSlot';
      tenant: string;
      missionId: string;
      executionId: string;
      why: SlotReleaseReason;
      stripe?: number;
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
  const stripe = command.stripe === undefined ? {} : { stripe: command.stripe };
  switch (command.type) {
    case 'TakeSlot':
      if (state.running >= command.limit)
        return reject('concurrency_limit', { detail: `${state.running} of ${command.limit} executions are running` });
      return [
        {
          type: 'ExecutionSlotsTaken',
          data: { tenant, missionId, executionIds: [executionId], running: state.running + 1, ...stripe, at },
        },
      ];
    case 'ReleaseSlot':
      return [
        {
          type: 'ExecutionSlotReleased',
          data: {
            tenant,
            missionId,
            executionId,
            running: Math.max(0, state.running - 1),
            ...stripe,
            at,
            why: command.why,
          },
        },
      ];
    default: {
      const _: never = command;
      return [];
    }
  }
}

/** One event per stripe (each goes to its own stream), in the order the stripes were first taken. */
export function mergeSlotsTaken(events: readonly ConcurrencyEvent[]): ConcurrencyEvent[] {
  const taken = events.filter((e): e is ExecutionSlotsTaken => e.type === 'ExecutionSlotsTaken');
  if (taken.length !== events.length) throw new IllegalStateError('only slots taken together can be merged');
  const byStripe = new Map<number, ExecutionSlotsTaken[]>();
  for (const e of taken) byStripe.set(e.data.stripe ?? 0, [...(byStripe.get(e.data.stripe ?? 0) ?? []), e]);
  return [...byStripe.values()].map((group) =>
    group.length === 1
      ? group[0]!
      : {
          type: 'ExecutionSlotsTaken',
          data: { ...group[group.length - 1]!.data, executionIds: group.flatMap((e) => e.data.executionIds) },
        },
  );
}

export const concurrencyDecider: Decider<ConcurrencyState, ConcurrencyEvent, ConcurrencyCommand> = {
  initialState: initialConcurrencyState,
  evolve: evolveConcurrency,
  decide: decideConcurrency,
};
