import { reject, type Rejection } from '../shared/result.js';
import {
  type ConcurrencyEvent,
  concurrencyDecider,
  type ConcurrencyState,
  decideConcurrency,
  initialConcurrencyState,
  type SlotReleaseReason,
} from './concurrency.js';

/**
 * AD-2: a Mission's maxConcurrent slots are split over this many streams (stripes), so racing claims of one
 * Mission append to different streams and rarely conflict. Stripe k may hold the share of slot numbers
 * 0…limit-1 that are ≡ k (mod SLOT_STRIPES); the shares add up to the limit, so the limit stays a hard bound
 * with each stripe only compared-and-set on its own revision. Never change it: the shares are the partition.
 */
export const SLOT_STRIPES = 32;

/** How many of `limit` slots stripe `stripe` may hold; monotone in `limit`, so a lowered limit only shrinks shares. */
export const stripeCapacity = (limit: number, stripe: number): number =>
  Math.floor(limit / SLOT_STRIPES) + (stripe < limit % SLOT_STRIPES ? 1 : 0);

/** The count of each stripe, index = stripe. */
export type MissionSlots = readonly ConcurrencyState[];

export const initialMissionSlots: MissionSlots = Array.from({ length: SLOT_STRIPES }, () => initialConcurrencyState);

/** The Mission's slots taken, over every stripe. */
export const runningOf = (slots: MissionSlots): number => slots.reduce((sum, s) => sum + s.running, 0);

export const stripeOf = (event: ConcurrencyEvent): number => event.data.stripe ?? 0;

export function evolveMissionSlots(slots: MissionSlots, event: ConcurrencyEvent): MissionSlots {
  const stripe = stripeOf(event);
  return slots.map((s, i) => (i === stripe ? concurrencyDecider.evolve(s, event) : s));
}

/** Where a take can land: stripes below their share. */
export const stripesWithRoom = (slots: MissionSlots, limit: number): number[] =>
  slots.flatMap((s, stripe) => (s.running < stripeCapacity(limit, stripe) ? [stripe] : []));

export interface SlotCommand {
  tenant: string;
  missionId: string;
  executionId: string;
  at: string;
}

/**
 * Refused when the Mission's total is at the limit (so a lowered limit binds new takes at once, even while
 * executions taken under the old one still hold stripes) or when no stripe has room. `choose` picks among the
 * stripes with room: claims pick at random so racing claimers spread; admission takes the first.
 */
export function takeMissionSlot(
  command: SlotCommand & { limit: number },
  slots: MissionSlots,
  choose: (stripes: readonly number[]) => number,
): ConcurrencyEvent[] | Rejection<'concurrency_limit'> {
  const running = runningOf(slots);
  const room = stripesWithRoom(slots, command.limit);
  if (running >= command.limit || room.length === 0)
    return reject('concurrency_limit', { detail: `${running} of ${command.limit} executions are running` });
  const stripe = choose(room);
  return decideConcurrency(
    { type: 'TakeSlot', ...command, limit: stripeCapacity(command.limit, stripe), stripe },
    slots[stripe]!,
  );
}

/**
 * A release may go to any stripe that holds a slot, not only the one its take went to: every stripe stays within
 * its share and the stripes' sum stays the number of slots held, which is all the bound needs. `choose` picks
 * among the stripes holding one; when none does (a count already lost), stripe 0 records it, floored at zero.
 */
export function releaseMissionSlot(
  command: SlotCommand & { why: SlotReleaseReason },
  slots: MissionSlots,
  choose: (stripes: readonly number[]) => number,
): ConcurrencyEvent[] {
  const holding = slots.flatMap((s, stripe) => (s.running > 0 ? [stripe] : []));
  const stripe = holding.length === 0 ? 0 : choose(holding);
  const released = concurrencyDecider.decide({ type: 'ReleaseSlot', ...command, stripe }, slots[stripe]!);
  return Array.isArray(released) ? released : [];
}
