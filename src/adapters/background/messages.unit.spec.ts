import { AppendBurst } from './messages.js';

/** One message per burst of appends crosses between threads: what it must carry for the other thread's waiters. */
describe('AppendBurst', () => {
  it('names every type and the highest position appended since the last message, then starts empty', () => {
    const burst = new AppendBurst();
    burst.add(['OccurrenceObserved'], 12);
    burst.add(['ExecutionClaimed', 'OccurrenceObserved'], 40);
    burst.add(['ExecutionCompleted'], 31);
    expect(burst.take()).toEqual({
      type: 'appended',
      types: ['OccurrenceObserved', 'ExecutionClaimed', 'ExecutionCompleted'],
      position: 40,
    });
    expect(burst.take()).toEqual({ type: 'appended', types: [] });
  });

  it('an append of unknown types wakes every waiter (no types); one without a position leaves the highest known', () => {
    const burst = new AppendBurst();
    burst.add(['OccurrenceObserved'], 7);
    burst.add(undefined);
    expect(burst.take()).toEqual({ type: 'appended', position: 7 });
  });
});
