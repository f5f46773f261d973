import { InProcessWakeups, WakeupDispatcher } from '../../src/adapters/wakeup/index.js';
import { type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { fire, manualTrigger } from './wakeups.support.js';

/** Without REDIS_URL (the embedded default): the dispatcher wakes this process's `claim-next` waiters. */
export function inProcessWakeupsSuite(kind: StoreKind): void {
  describe(`EX-1 in-process wakeups without Redis (${kind})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp(kind);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('an admission wakes a waiting long poll of its tenant long before its timeout', async () => {
      const wakeups = t.app.get(InProcessWakeups);
      const { triggerId } = await manualTrigger(t);
      // The dispatcher started at boot, from the log's head then; this admission comes later.
      expect(t.app.get(WakeupDispatcher).subscription.error).toBeNull();
      const since = wakeups.seen('tenant-a');
      const started = Date.now();
      const waiting = wakeups.wait('tenant-a', 20_000, { since });
      const other = wakeups.wait('tenant-b', 1_000);
      const occurrenceId = await fire(t, triggerId);
      expect(await waiting).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(wakeups.seen('tenant-a')).toBeGreaterThan(since);
      expect(await other).toBe(false);
      const health = await t.request({ method: 'GET', url: '/health/ready', token: null });
      expect(health.status).toBe(200);
      expect(health.body.info.wakeups).toEqual({ status: 'up', transport: 'in-process' });
      expect(occurrenceId).toEqual(expect.any(String));
    });
  });
}
