import { AppendSignal } from '../../../projections/runner/append-signal.js';
import { InProcessWakeups } from '../../wakeup/in-process-wakeups.js';
import { AppendSignalWaiter } from './claimable-waiter.js';

const wakeup = (tenant: string) => ({
  executionId: 'x-1',
  generation: 2,
  attempt: 2,
  tenant,
  missionId: 'm-1',
  triggerId: 't-1',
  lane: 'trigger:t-1',
});

describe('claim-next waiter (EX-1, EX-4)', () => {
  it("EX-4 wakes on the tenant's wakeup (a redelivery from the background thread appends nothing here)", async () => {
    const wakeups = new InProcessWakeups();
    const waiter = new AppendSignalWaiter(new AppendSignal(), wakeups);
    const started = Date.now();
    const waiting = waiter.wait('acme', 5_000);
    wakeups.notify(wakeup('acme'), 10);
    await waiting;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(wakeups.waiting).toBe(0);
  });

  it("another tenant's wakeup does not wake it; an append does, and leaves no waiter behind", async () => {
    const wakeups = new InProcessWakeups();
    const signal = new AppendSignal();
    const waiter = new AppendSignalWaiter(signal, wakeups);
    let woken = false;
    const waiting = waiter.wait('acme', 5_000).then(() => (woken = true));
    wakeups.notify(wakeup('other'), 11);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(woken).toBe(false);
    signal.notify();
    await waiting;
    expect(wakeups.waiting).toBe(0);
  });
});
