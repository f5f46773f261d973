import type { Decider, DomainEvent } from '../shared/decider.js';
import { reject, type Rejection } from '../shared/result.js';

/**
 * BA-3 `overlap: skip`: the one execution of a Trigger that is not terminal yet. Every event carries the
 * whole state, so admission reads only the last one; only Triggers that skip overlaps have this stream.
 */
export interface OverlapState {
  running: string | null;
}

interface OverlapData {
  tenant: string;
  triggerId: string;
  executionId: string;
  at: string;
}

/** Appended with the admission at the revision read, so two admitters of one Trigger serialize. */
export type TriggerExecutionStarted = DomainEvent<'TriggerExecutionStarted', OverlapData & { running: string }>;
/** Appended with the execution's terminal event (completed, or settled as noncommitted). */
export type TriggerExecutionEnded = DomainEvent<
  'TriggerExecutionEnded',
  OverlapData & { running: null; why: 'completed' | 'noncommitted' | 'dead_lettered' }
>;
export type OverlapEvent = TriggerExecutionStarted | TriggerExecutionEnded;

export type OverlapCommand =
  | { type: 'StartTriggerExecution'; tenant: string; triggerId: string; executionId: string; at: string }
  | {
      type: 'EndTriggerExecution';
      tenant: string;
      triggerId: string;
      executionId: string;
      why: 'completed' | 'noncommitted' | 'dead_lettered';
      at: string;
    };

export const initialOverlapState: OverlapState = { running: null };

export function evolveOverlap(_state: OverlapState, event: OverlapEvent): OverlapState {
  return { running: event.data.running };
}

/**
 * The execution that blocks a new one of the Trigger, null when none does. A marker naming the
 * Occurrence's own execution is its own admission retried after a crash between non-atomic appends.
 */
export const blockingExecution = (state: OverlapState, executionId: string): string | null =>
  state.running === executionId ? null : state.running;

export function decideOverlap(
  command: OverlapCommand,
  state: OverlapState,
): OverlapEvent[] | Rejection<'overlap_skip'> {
  const { tenant, triggerId, executionId, at } = command;
  switch (command.type) {
    case 'StartTriggerExecution': {
      const blocking = blockingExecution(state, executionId);
      if (blocking !== null) return reject('overlap_skip', { detail: `execution ${blocking} is not terminal` });
      if (state.running === executionId) return [];
      return [{ type: 'TriggerExecutionStarted', data: { tenant, triggerId, executionId, running: executionId, at } }];
    }
    case 'EndTriggerExecution':
      // Only the marker's own execution ends it: a stale end must not free the Trigger for another's overlap.
      if (state.running !== executionId) return [];
      return [
        {
          type: 'TriggerExecutionEnded',
          data: { tenant, triggerId, executionId, running: null, why: command.why, at },
        },
      ];
    default: {
      const _: never = command;
      return [];
    }
  }
}

export const overlapDecider: Decider<OverlapState, OverlapEvent, OverlapCommand> = {
  initialState: initialOverlapState,
  evolve: evolveOverlap,
  decide: decideOverlap,
};
