import { ValidationError } from '../shared/errors.js';
import type { DedupeIdentity } from './dedupe-identity.js';

/**
 * DD-4 retention of one use of an identity: the Trigger's `dedupe.windowSeconds`, but never shorter than the
 * source's authentication replay horizon (DD-2), so a provider retry the auth replay store still knows is
 * never a new Occurrence, whatever the window says.
 */
export function retentionSeconds(windowSeconds: number, authReplayHorizonSeconds: number): number {
  return Math.max(windowSeconds, authReplayHorizonSeconds);
}

/** What decides whether one use of an identity still answers `duplicate`. */
export type Use = { status: 'absent' } | { status: 'observed' } | { status: 'decided'; decidedAt: string };

/**
 * DD-4: an identity is reusable only once its latest Occurrence is terminal (decided) and the retention has
 * passed since that decision, both by the database clock (`now`). An undecided Occurrence never expires.
 */
export function reusable(use: Use, now: string, retention: number): boolean {
  if (use.status !== 'decided') return false;
  const decided = Date.parse(use.decidedAt);
  const at = Date.parse(now);
  if (Number.isNaN(decided) || Number.isNaN(at)) return false;
  return at >= decided + retention * 1000;
}

/** The identity's `generation`-th reuse (0: the first use, with no generation member at all). */
export function atGeneration(identity: DedupeIdentity, generation: number): DedupeIdentity {
  if (!Number.isSafeInteger(generation) || generation < 0)
    throw new ValidationError('a dedupe generation is a non-negative integer');
  const { generation: _previous, ...first } = identity;
  return generation === 0 ? first : { ...first, generation };
}

export const generationOf = (identity: DedupeIdentity): number => identity.generation ?? 0;
