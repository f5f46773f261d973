import { type PendingWorkQuery, RelayWaiter } from './claimable-waiter.js';

const acme: PendingWorkQuery = { tenant: 'acme' };
const missionA: PendingWorkQuery = { tenant: 'acme', missionId: 'm-a' };
const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parks `n` long polls of `query`; `woken()` counts those that have returned. */
function park(waiter: RelayWaiter, n: number, query = acme, timeoutMs = 5_000) {
  let woken = 0;
  const all = Array.from({ length: n }, () => waiter.wait(query, timeoutMs, waiter.mark()).then(() => woken++));
  return { woken: () => woken, all: Promise.all(all) };
}

describe('claim-next waiter (EX-1, EX-2, EX-4)', () => {
  it('EX-2 a fold wakes the longest waiter only; what it found wakes as many more, and no more', async () => {
    const waiter = new RelayWaiter();
    const polls = park(waiter, 5);
    waiter.folded();
    await tick(0);
    expect(polls.woken()).toBe(1);
    waiter.relay(acme, 2); // its read found three candidates: two more look
    await tick(0);
    expect(polls.woken()).toBe(3);
    expect(waiter.parked).toBe(2);
    waiter.relay(acme, 10);
    await polls.all;
    expect(waiter.parked).toBe(0);
  });

  it("EX-4 a tenant's wakeups of one message wake its longest waiter once; another tenant's wake none", async () => {
    const waiter = new RelayWaiter();
    const polls = park(waiter, 3);
    waiter.wokenUp('other');
    await tick();
    expect(polls.woken()).toBe(0);
    for (let i = 0; i < 15; i++) waiter.wokenUp('acme');
    await tick();
    expect(polls.woken()).toBe(1);
    waiter.wokenUp('acme');
    await tick();
    expect(polls.woken()).toBe(2);
    waiter.relay(acme, 2);
    await polls.all;
  });

  it('a fold wakes the longest waiter of every query (tenant and filters), so none waits for another to look', async () => {
    const waiter = new RelayWaiter();
    const ofMissionA = park(waiter, 2, missionA);
    const anyWork = park(waiter, 2);
    const otherTenant = park(waiter, 2, { tenant: 'other' });
    waiter.folded();
    await tick(0);
    expect([ofMissionA.woken(), anyWork.woken(), otherTenant.woken()]).toEqual([1, 1, 1]);
    // A relay wakes waiters of the same query only.
    waiter.relay(missionA, 5);
    await tick(0);
    expect([ofMissionA.woken(), anyWork.woken(), otherTenant.woken()]).toEqual([2, 1, 1]);
    waiter.folded();
    waiter.folded();
    await Promise.all([ofMissionA.all, anyWork.all, otherTenant.all]);
  });

  it('only a first look relays: the poll a fold woke, not one relayed to, ended by a change or by its timeout', async () => {
    const waiter = new RelayWaiter();
    const first = waiter.wait(acme, 5_000, waiter.mark());
    const relayed = waiter.wait(acme, 5_000, waiter.mark());
    const mark = waiter.mark();
    waiter.folded();
    expect(await first).toBe(true);
    waiter.relay(acme, 1);
    expect(await relayed).toBe(false);
    expect(await waiter.wait(acme, 5_000, mark)).toBe(false); // the fold came during its read: not news to pass on
    expect(await waiter.wait(acme, 10, waiter.mark())).toBe(false); // every parked poll re-reads on time: no news
  });

  it('EX-2 a change while the candidates were read and claimed ends the wait after them at once', async () => {
    const waiter = new RelayWaiter();
    const mark = waiter.mark();
    waiter.folded(); // lands while the caller reads and loses its candidates
    // At once: settled before any timer could run (a wall-clock bound failed on a machine saturated by a full run).
    let settled = false;
    const after = waiter.wait(acme, 5_000, mark).then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
    await after;
    const before = waiter.mark();
    waiter.wokenUp('acme');
    await waiter.wait(acme, 5_000, before);
    await tick(); // the wakeup's own look, due after this tick, finds nobody parked
    // Without a change since the mark it waits for its timeout, and is gone after it.
    const idle = park(waiter, 1, acme, 100);
    await tick(50);
    expect(idle.woken()).toBe(0);
    await idle.all;
    expect(waiter.parked).toBe(0);
  });
});
