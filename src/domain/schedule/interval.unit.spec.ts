import { parseIsoDuration } from './interval.js';

describe('SC-1 interval@1 durations', () => {
  it.each([
    ['PT1S', 1_000],
    ['PT90M', 5_400_000],
    ['PT1H30M', 5_400_000],
    ['P1D', 86_400_000],
    ['P1DT12H', 129_600_000],
    ['P2W', 1_209_600_000],
    ['PT1.5S', 1_500],
    ['PT0H0M1S', 1_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseIsoDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['PT0.5S', /shorter than the minimum interval PT1S/],
    ['PT0S', /shorter than the minimum/],
    ['P1Y', /years and months/],
    ['P1M', /years and months/],
    ['P1Y2M3DT4H', /years and months/],
    ['P1W2D', /weeks .* cannot be combined/],
    ['P', /not an ISO-8601 duration/],
    ['PT', /not an ISO-8601 duration/],
    ['P1DT', /not an ISO-8601 duration/],
    ['1H', /not an ISO-8601 duration/],
    ['pt1h', /not an ISO-8601 duration/],
    ['PT-1H', /not an ISO-8601 duration/],
    ['PT1.5M', /not an ISO-8601 duration/],
    ['P99999999999999999D', /too long/],
  ])('rejects %s', (text, message) => {
    const parsed = parseIsoDuration(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});
