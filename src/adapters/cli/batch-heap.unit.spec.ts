import { BATCH_HEAP_FLAGS, hasBatchHeap } from './batch-heap.js';

describe('the batch commands’ young generation', () => {
  it('is chosen once: a process started with the batch flags, or with the user’s own size, runs the command itself', () => {
    expect(hasBatchHeap([...BATCH_HEAP_FLAGS])).toBe(true);
    expect(hasBatchHeap(['--max-semi-space-size=8'])).toBe(true);
    expect(hasBatchHeap(['--max-semi-space-size', '8'])).toBe(true);
  });

  it('is missing from a plain start, and a look-alike flag does not count', () => {
    expect(hasBatchHeap([])).toBe(false);
    expect(hasBatchHeap(['--enable-source-maps', '--max-old-space-size=4096'])).toBe(false);
    expect(hasBatchHeap(['--max-semi-space-sizes=8'])).toBe(false);
  });
});
