import { eachConcurrently, idleUntil } from './timed-loop.js';

describe('background loops by the database clock (SC-6)', () => {
  it('sleep until the next due time, never below 20 ms nor above the cap; nothing due: the cap', () => {
    expect(idleUntil(null, 1000)).toBe(1000);
    expect(idleUntil(0, 1000)).toBe(20);
    expect(idleUntil(250.2, 1000)).toBe(251);
    expect(idleUntil(60_000, 1000)).toBe(1000);
  });

  it('work every item at most `concurrency` at once; a failing one holds back none of the others', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const items = [1, 2, 3, 4, 5, 6, 7];
    const work = eachConcurrently(items, 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n === 2) throw new Error('item 2');
      done.push(n);
    });
    await expect(work).rejects.toThrow('item 2');
    expect(done.sort()).toEqual([1, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });
});
