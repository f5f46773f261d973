import { BackgroundThread } from '../../src/adapters/background/background-thread.js';
import { until } from '../support/until.js';
import { threadPlan } from '../../src/adapters/background/thread-roles.js';
import { POLL_LOOP } from '../../src/adapters/poll/poll-loop.js';
import { DecisionNotifier } from '../../src/commands/admit-occurrence/decision-notifier.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';

describe('REVEILLE_BACKGROUND=thread: the poll loop in a thread of its own', () => {
  it('the poll loop gets a thread beside the other work; REVEILLE_BACKGROUND_ONLY decides which threads exist', () => {
    const both = threadPlan(null, 40);
    expect(both.roles.map((r) => [r.name, r.only, r.except])).toEqual([
      ['background-thread', null, [POLL_LOOP]],
      ['poller-thread', [POLL_LOOP], []],
    ]);
    expect(both.httpPool + both.roles.reduce((sum, r) => sum + r.databasePool, 0)).toBe(40);
    // the poller's Occurrences must wake admission in the other thread
    expect(both.roles.map((r) => [r.reportsAppends, r.receivesAppends])).toEqual([
      [false, true],
      [true, false],
    ]);

    const noPoller = threadPlan(['processor:admission'], 40);
    expect(noPoller.roles.map((r) => [r.name, r.only, r.except, r.databasePool])).toEqual([
      ['background-thread', ['processor:admission'], [], 20],
    ]);
    const pollerOnly = threadPlan([POLL_LOOP], 40);
    expect(pollerOnly.roles.map((r) => [r.name, r.only, r.reportsAppends, r.databasePool])).toEqual([
      ['poller-thread', [POLL_LOOP], false, 20],
    ]);
  });

  it("one thread's appends reach the other threads through the HTTP thread, never back to the thread that made them", async () => {
    const signal = new AppendSignal();
    const notifier = new DecisionNotifier();
    const heard: string[] = [];
    notifier.onDecided((decision) => heard.push(decision.occurrenceId));
    const [folds, poller] = threadPlan(null, 40).roles;
    const threads = [folds!, poller!].map(
      (role) =>
        new BackgroundThread(
          signal,
          notifier,
          () => undefined,
          new URL('./fixtures/appending-worker.mjs', import.meta.url),
          role,
        ),
    );
    threads.forEach((thread) => thread.start());
    try {
      await until(() => threads.every((thread) => thread.error === null));
      // the fixture answers this by telling of an OccurrenceObserved it appended
      (threads[1] as unknown as { send(message: unknown): void }).send({ type: 'append' });
      await until(() => heard.includes('background-thread told of OccurrenceObserved'));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(heard.filter((h) => h.startsWith('poller-thread'))).toEqual([]);
    } finally {
      await Promise.all(threads.map((thread) => thread.stop()));
    }
  }, 20_000);
});
