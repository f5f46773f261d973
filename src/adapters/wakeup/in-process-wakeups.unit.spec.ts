import type { Wakeup } from '../../domain/execution/wakeup.js';
import { InProcessWakeups } from './in-process-wakeups.js';

const wakeup = (tenant: string, executionId = 'x-1'): Wakeup => ({
  executionId,
  generation: 1,
  attempt: 1,
  tenant,
  missionId: 'm-1',
  triggerId: 't-1',
  lane: 'lane',
});

describe('InProcessWakeups (claim-next long polls)', () => {
  it('a notification wakes the waiters of its tenant before their timeout', async () => {
    const wakeups = new InProcessWakeups();
    const started = Date.now();
    const waiting = [wakeups.wait('acme', 5_000), wakeups.wait('acme', 5_000)];
    wakeups.notify(wakeup('acme'), 7);
    expect(await Promise.all(waiting)).toEqual([true, true]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(wakeups.seen('acme')).toBe(7);
    expect(wakeups.waiting).toBe(0);
  });

  it("another tenant's wakeup does not wake a waiter; its timeout does", async () => {
    const wakeups = new InProcessWakeups();
    const waiting = wakeups.wait('acme', 50);
    wakeups.notify(wakeup('globex'), 3);
    expect(await waiting).toBe(false);
    expect(wakeups.seen('acme')).toBe(0);
    expect(wakeups.waiting).toBe(0);
  });

  it('a wakeup between reading seen() and waiting is not missed', async () => {
    const wakeups = new InProcessWakeups();
    const since = wakeups.seen('acme');
    wakeups.notify(wakeup('acme'), 11);
    // At once: settled before any timer could run (not a wall-clock bound, which a saturated machine can stall).
    let settled: boolean | null = null;
    const waited = wakeups.wait('acme', 5_000, { since }).then((woken) => (settled = woken));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
    await waited;
    expect(await wakeups.wait('acme', 20, { since: wakeups.seen('acme') })).toBe(false);
  });

  it('an abort ends the wait as not woken and forgets the waiter', async () => {
    const wakeups = new InProcessWakeups();
    const abort = new AbortController();
    const waiting = wakeups.wait('acme', 5_000, { signal: abort.signal });
    expect(wakeups.waiting).toBe(1);
    abort.abort();
    expect(await waiting).toBe(false);
    expect(wakeups.waiting).toBe(0);
  });

  it('listeners hear every notification (the background thread forwards them)', () => {
    const wakeups = new InProcessWakeups();
    const heard: Array<[string, number]> = [];
    wakeups.onNotified((w, position) => heard.push([w.executionId, position]));
    wakeups.notify(wakeup('acme', 'x-1'), 1);
    wakeups.notify(wakeup('globex', 'x-2'), 2);
    expect(heard).toEqual([
      ['x-1', 1],
      ['x-2', 2],
    ]);
  });
});
