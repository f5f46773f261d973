import { type DecisionMade, decisionMade, DecisionNotifier } from './decision-notifier.js';

const admitted = (occurrenceId: string, position = 7): DecisionMade => ({
  occurrenceId,
  status: 'admitted',
  reason: null,
  executionId: `x-${occurrenceId}`,
  position,
});

describe('DecisionNotifier (?wait=decision)', () => {
  it('hands a waiter the decision as it is made, with its position', async () => {
    const notifier = new DecisionNotifier();
    const waiting = notifier.wait('o-1', 5_000);
    notifier.decided(admitted('o-1', 42));
    await expect(waiting).resolves.toEqual(admitted('o-1', 42));
  });

  it('AD-1 answers a decision made before the waiter came from memory: a decision never changes', async () => {
    const notifier = new DecisionNotifier();
    notifier.decided(admitted('o-1'));
    await expect(notifier.wait('o-1', 5_000)).resolves.toEqual(admitted('o-1'));
  });

  it('answers null when nothing was decided here in time (the waiter then reads the stream)', async () => {
    const notifier = new DecisionNotifier();
    notifier.decided(admitted('o-2'));
    await expect(notifier.wait('o-1', 10)).resolves.toBeNull();
  });

  it('remembers a bounded number of decisions, oldest forgotten first', async () => {
    const notifier = new DecisionNotifier();
    for (let i = 0; i <= 1_024; i++) notifier.decided(admitted(`o-${i}`));
    await expect(notifier.wait('o-0', 10)).resolves.toBeNull();
    await expect(notifier.wait('o-1024', 10)).resolves.toEqual(admitted('o-1024'));
  });

  it('passes every decision on to listeners (the background thread forwards them)', () => {
    const notifier = new DecisionNotifier();
    const heard: DecisionMade[] = [];
    notifier.onDecided((decision) => heard.push(decision));
    notifier.decided(admitted('o-1'));
    expect(heard).toEqual([admitted('o-1')]);
  });

  it('reads status, reason and execution id off the decision event', () => {
    expect(
      decisionMade(
        'o-1',
        [
          {
            type: 'OccurrenceBlocked',
            data: { occurrenceId: 'o-1', reason: 'trigger_disabled', evidence: {}, decidedAt: '2026-01-01T00:00:00Z' },
          },
        ] as never,
        9,
      ),
    ).toEqual({ occurrenceId: 'o-1', status: 'blocked', reason: 'trigger_disabled', executionId: null, position: 9 });
  });
});
