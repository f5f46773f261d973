import { BackgroundThread } from '../../src/adapters/background/background-thread.js';
import { until } from '../support/until.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import { DecisionNotifier } from '../../src/commands/admit-occurrence/decision-notifier.js';
import { threadPlan, type ThreadRole } from '../../src/adapters/background/thread-roles.js';

const folds: ThreadRole = threadPlan(null, 40).roles[0]!;

describe('BackgroundThread supervision', () => {
  it('OP-4 a background thread that dies is reported failing, then started again; stop ends it', async () => {
    const signal = new AppendSignal();
    const notifier = new DecisionNotifier();
    const heard: string[] = [];
    notifier.onDecided((decision) => heard.push(decision.occurrenceId));
    const thread = new BackgroundThread(
      signal,
      notifier,
      () => undefined,
      new URL('./fixtures/dying-worker.mjs', import.meta.url),
      folds,
    );
    expect(String(thread.error)).toMatch(/background thread: starting/);
    thread.start();
    // A failed wait must not leave the thread respawning every second for the rest of the worker's run
    try {
      await until(() => heard.includes('spawned'), 3_000, 10);
      expect(thread.error).toBeNull();
      expect(thread.remoteTasks).toEqual(['fixture:task']);
      // this thread's appends wake the worker
      signal.notify();
      await until(() => heard.includes('appended'));
      // it dies (exit code 3): failing until the next one is up, about a second later
      await until(() => /exited with code 3/.test(String(thread.error)));
      await until(() => heard.filter((id) => id === 'spawned').length === 2, 5_000);
      expect(thread.error).toBeNull();
    } finally {
      await thread.stop();
    }
    const spawned = heard.filter((id) => id === 'spawned').length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(heard.filter((id) => id === 'spawned').length).toBe(spawned);
  }, 20_000);
});
