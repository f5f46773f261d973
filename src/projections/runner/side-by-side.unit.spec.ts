import { sideBySide } from './side-by-side.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('OP-3 rebuilds side by side', () => {
  it('runs every item once, never more than `concurrency` at a time', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await sideBySide([10, 11, 12, 13, 14, 15, 16], 3, async (item) => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      seen.push(item);
      running--;
    });
    expect(seen.sort()).toEqual([10, 11, 12, 13, 14, 15, 16]);
    expect(peak).toBe(3);
  });

  it('after a failure starts nothing new, lets the running ones finish, then throws the first error', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = sideBySide([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 1) throw new Error('rebuild 1 failed');
      await tick();
      await tick();
      finished.push(item);
    });
    await expect(run).rejects.toThrow('rebuild 1 failed');
    // 0 was running when 1 failed: it finished; nothing after the failure started except what was already taken.
    expect(finished).toContain(0);
    expect(started).not.toContain(5);
    expect(started.length).toBeLessThan(6);
  });
});
