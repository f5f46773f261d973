import { BackgroundThread } from '../../src/adapters/background/background-thread.js';
import { InProcessWakeups } from '../../src/adapters/wakeup/index.js';
import { DecisionNotifier } from '../../src/commands/admit-occurrence/decision-notifier.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import { threadPlan } from '../../src/adapters/background/thread-roles.js';

describe('EX-1 REVEILLE_BACKGROUND=thread: wakeups cross from the dispatcher thread to the HTTP thread', () => {
  it("a wakeup notified in the background thread wakes the HTTP thread's waiter", async () => {
    const signal = new AppendSignal();
    const wakeups = new InProcessWakeups();
    const thread = new BackgroundThread(
      signal,
      new DecisionNotifier(),
      () => undefined,
      new URL('./fixtures/wakeup-worker.mjs', import.meta.url),
      threadPlan(null, 40).roles[0]!,
      wakeups,
    );
    thread.start();
    try {
      const waiting = wakeups.wait('acme', 10_000);
      const started = Date.now();
      signal.notify(); // the thread is told about an append and answers with a wakeup
      expect(await waiting).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(wakeups.seen('acme')).toBe(42);
    } finally {
      await thread.stop();
    }
  }, 20_000);
});
