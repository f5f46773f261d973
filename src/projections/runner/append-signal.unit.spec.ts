import { AppendSignal } from './append-signal.js';

/** Resolves to whether `waiting` settled within `ms`. */
const settlesWithin = (waiting: Promise<void>, ms: number) =>
  Promise.race([waiting.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('append signal', () => {
  it('wakes a waiter for the event types it reads, at once', async () => {
    const signal = new AppendSignal();
    const waiting = signal.wait(5_000, new Set(['ExecutionClaimed']));
    signal.notify(['ConcurrencySlotTaken', 'ExecutionClaimed']);
    expect(await settlesWithin(waiting, 200)).toBe(true);
  });

  it('does not wake it for other types; its timeout still ends the wait (the idle poll) and leaves no waiter', async () => {
    const signal = new AppendSignal();
    const waiting = signal.wait(100, new Set(['OccurrenceObserved']));
    signal.notify(['ExecutionClaimed']);
    expect(await settlesWithin(waiting, 50)).toBe(false);
    expect(await settlesWithin(waiting, 500)).toBe(true);
    // Were it still listed, this notification would be its second wake-up; nothing left to wake means nothing kept.
    expect((signal as unknown as { waiters: unknown[] }).waiters).toHaveLength(0);
  });

  it('wakes every waiter for an append of unknown types, and an unfiltered waiter for any append', async () => {
    const signal = new AppendSignal();
    const filtered = signal.wait(5_000, new Set(['OccurrenceObserved']));
    signal.notify();
    expect(await settlesWithin(filtered, 200)).toBe(true);
    const unfiltered = signal.wait(5_000);
    signal.notify(['ExecutionCompleted']);
    expect(await settlesWithin(unfiltered, 200)).toBe(true);
  });

  it('tells listeners every notification with its types (what the background thread forwards)', () => {
    const signal = new AppendSignal();
    const heard: Array<readonly string[] | undefined> = [];
    signal.onNotify((types) => heard.push(types));
    signal.notify(['ExecutionClaimed']);
    signal.notify();
    expect(heard).toEqual([['ExecutionClaimed'], undefined]);
  });

  it('a wait since a count returns at once if an append of its types was told after it, and only then', async () => {
    const signal = new AppendSignal();
    const types = new Set(['OccurrenceObserved']);
    const seen = signal.notified;
    signal.notify(['ExecutionClaimed']);
    expect(await settlesWithin(signal.wait(5_000, types, seen), 50)).toBe(false);
    signal.notify(['OccurrenceObserved']);
    expect(await settlesWithin(signal.wait(5_000, types, seen), 50)).toBe(true);
    // Told before the count was taken: waited for as usual.
    expect(await settlesWithin(signal.wait(5_000, types, signal.notified), 50)).toBe(false);
    const unknown = signal.notified;
    signal.notify();
    expect(await settlesWithin(signal.wait(5_000, types, unknown), 50)).toBe(true);
    signal.notify(['ExecutionClaimed']);
  });

  it('wake rouses the waiters for its types, a wait since a count included, and tells listeners nothing (no append)', async () => {
    const signal = new AppendSignal();
    const heard: Array<readonly string[] | undefined> = [];
    signal.onNotify((types) => heard.push(types));
    const waiting = signal.wait(5_000, new Set(['OccurrenceObserved']));
    const other = signal.wait(5_000, new Set(['ExecutionClaimed']));
    const seen = signal.notified;
    signal.wake(['OccurrenceObserved']);
    expect(await settlesWithin(waiting, 50)).toBe(true);
    expect(await settlesWithin(other, 50)).toBe(false);
    expect(await settlesWithin(signal.wait(5_000, new Set(['OccurrenceObserved']), seen), 50)).toBe(true);
    expect(heard).toEqual([]);
    signal.notify(['ExecutionClaimed']);
  });
});
