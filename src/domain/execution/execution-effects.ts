import type { SlotReleaseReason } from '../admission/concurrency.js';
import { isTerminal, type KnownExecution } from './execution-state.js';

/**
 * AD-2: what a transition does to the Mission's concurrency slot, from the states before and after it. A
 * claim takes one unless the execution already holds it (an opt-in `block` admission took it); anything
 * that ends the attempt — completion, retry wait, dead letter, noncommit settlement — gives it back.
 */
export function slotChange(
  before: KnownExecution,
  after: KnownExecution,
): { take: true } | { release: SlotReleaseReason } | null {
  if (!before.holdsSlot && after.holdsSlot) return { take: true };
  if (!before.holdsSlot || after.holdsSlot) return null;
  switch (after.status) {
    case 'completed':
    case 'noncommitted':
    case 'retrying':
    case 'dead_lettered':
      return { release: after.status };
    default:
      return null;
  }
}

export type OverlapEndReason = 'completed' | 'noncommitted' | 'dead_lettered';

/**
 * BA-3: a Trigger that skips overlaps is held by its execution until that one is terminal; a retry wait is
 * not terminal. A recovery makes the execution live again and takes the marker back when it is free.
 */
export function overlapChange(
  before: KnownExecution,
  after: KnownExecution,
): { start: true } | { end: OverlapEndReason } | null {
  if (before.request.overlap !== 'skip') return null;
  const wasTerminal = isTerminal(before);
  const nowTerminal = isTerminal(after);
  if (!wasTerminal && nowTerminal) return { end: after.status as OverlapEndReason };
  if (wasTerminal && !nowTerminal) return { start: true };
  return null;
}
