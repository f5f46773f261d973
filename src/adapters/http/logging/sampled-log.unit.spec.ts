import { SampledLog } from './sampled-log.js';

describe('OP-4 sampled log lines for refused webhooks', () => {
  let now = 0;
  const sampled = () => new SampledLog(1000, 3, () => now);

  beforeEach(() => (now = 10_000));

  it('given a first refusal of a key, when admitted, then it is written with nothing held back', () => {
    expect(sampled().admit('s-1/401')).toBe(0);
  });

  it('given a line within the interval, when the same key comes again, then it is held back and counted', () => {
    const log = sampled();
    log.admit('s-1/401');
    now += 999;
    expect(log.admit('s-1/401')).toBeNull();
    expect(log.admit('s-1/401')).toBeNull();
    now += 1;
    expect(log.admit('s-1/401')).toBe(2);
    expect(log.admit('s-1/401')).toBeNull();
  });

  it('given one key held back, when another key comes, then it is written at once', () => {
    const log = sampled();
    log.admit('s-1/401');
    expect(log.admit('s-2/401')).toBe(0);
    expect(log.admit('s-1/413')).toBe(0);
  });

  it('given a storm of distinct keys (random source ids), when the table is full, then memory stays bounded', () => {
    const log = sampled();
    for (let i = 0; i < 10_000; i++) log.admit(`random-${i}`);
    expect((log as unknown as { last: Map<string, unknown> }).last.size).toBeLessThanOrEqual(3);
  });
});
