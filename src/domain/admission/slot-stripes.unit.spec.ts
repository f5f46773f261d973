import { isRejection } from '../shared/result.js';
import type { ConcurrencyEvent } from './concurrency.js';
import {
  evolveMissionSlots,
  initialMissionSlots,
  type MissionSlots,
  releaseMissionSlot,
  runningOf,
  SLOT_STRIPES,
  stripeCapacity,
  stripeOf,
  takeMissionSlot,
} from './slot-stripes.js';

const AT = '2026-03-01T10:00:00.000Z';
const ids = { tenant: 'acme', missionId: 'm-1', at: AT };
const first = (stripes: readonly number[]) => stripes[0]!;
const last = (stripes: readonly number[]) => stripes[stripes.length - 1]!;

/** Takes until refused, choosing with `choose`; returns the state and how many were taken. */
function fill(limit: number, slots: MissionSlots, choose: (s: readonly number[]) => number) {
  let taken = 0;
  for (;;) {
    const events = takeMissionSlot({ ...ids, executionId: `e-${taken}`, limit }, slots, choose);
    if (isRejection(events)) return { slots, taken, refusal: events };
    slots = events.reduce(evolveMissionSlots, slots);
    taken += 1;
  }
}

describe('Mission slots striped over streams (AD-2 maxConcurrent)', () => {
  it('the stripes share out exactly the limit, and a lower limit never gives a stripe more', () => {
    for (const limit of [0, 1, 5, 20, 31, 32, 33, 100, 10_000]) {
      const shares = Array.from({ length: SLOT_STRIPES }, (_, k) => stripeCapacity(limit, k));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(limit);
      shares.forEach((share, k) => expect(stripeCapacity(limit - 1, k)).toBeLessThanOrEqual(share));
    }
  });

  it.each([1, 5, 20, 100])('takes exactly maxConcurrent %i however the stripes are chosen, then refuses', (limit) => {
    for (const choose of [first, last, (s: readonly number[]) => s[Math.floor(s.length / 2)]!]) {
      const { slots, taken, refusal } = fill(limit, initialMissionSlots, choose);
      expect(taken).toBe(limit);
      expect(runningOf(slots)).toBe(limit);
      expect(refusal).toMatchObject({
        code: 'concurrency_limit',
        detail: `${limit} of ${limit} executions are running`,
      });
    }
  });

  it('a take names its stripe and carries the count that stripe is left with', () => {
    const events = takeMissionSlot({ ...ids, executionId: 'e-1', limit: 40 }, initialMissionSlots, () => 7);
    expect(events).toEqual([
      {
        type: 'ExecutionSlotsTaken',
        data: { tenant: 'acme', missionId: 'm-1', executionIds: ['e-1'], running: 1, stripe: 7, at: AT },
      },
    ]);
  });

  it('a release goes to a stripe that holds a slot, so the stripes still sum to the slots held', () => {
    let { slots } = fill(20, initialMissionSlots, first);
    const released = releaseMissionSlot({ ...ids, executionId: 'e-3', why: 'completed' }, slots, last);
    expect(released).toHaveLength(1);
    expect(stripeOf(released[0]!)).toBe(19);
    slots = released.reduce(evolveMissionSlots, slots);
    expect(runningOf(slots)).toBe(19);
    // The freed share is the only room left: the next take lands there and the limit holds.
    const again = fill(20, slots, first);
    expect([again.taken, runningOf(again.slots)]).toEqual([1, 20]);
  });

  it('a release with nothing held is recorded on stripe 0, floored at zero', () => {
    expect(releaseMissionSlot({ ...ids, executionId: 'e-1', why: 'noncommitted' }, initialMissionSlots, last)).toEqual([
      {
        type: 'ExecutionSlotReleased',
        data: {
          tenant: 'acme',
          missionId: 'm-1',
          executionId: 'e-1',
          running: 0,
          stripe: 0,
          at: AT,
          why: 'noncommitted',
        },
      },
    ]);
  });

  it('a lowered limit binds new takes at once, although stripes taken under the old one are still held', () => {
    const { slots } = fill(64, initialMissionSlots, first);
    expect(runningOf(slots)).toBe(64);
    expect(fill(10, slots, first).taken).toBe(0);
  });

  it('events written before slots were striped count on stripe 0', () => {
    const legacy: ConcurrencyEvent = {
      type: 'ExecutionSlotsTaken',
      data: { tenant: 'acme', missionId: 'm-1', executionIds: ['old'], running: 3, at: AT },
    };
    const slots = evolveMissionSlots(initialMissionSlots, legacy);
    expect([slots[0]!.running, runningOf(slots)]).toEqual([3, 3]);
    // maxConcurrent 5: three held on stripe 0 leave two slots, wherever they land.
    expect(fill(5, slots, last).taken).toBe(2);
  });
});
