import { jest } from '@jest/globals';
import { loadConfig } from '../config/config.js';
import type { SqlClient } from '../../projections/sql-client.js';
import { Backpressure } from './backpressure.js';

describe('WH-8 backpressure counts only where ingress is served', () => {
  let counts: number;
  let outstanding: Array<{ tenant: string; source_id: string; n: number }>;
  let folded: number;
  // The count's shape: the projection's checkpoint on every row, one row with no source when none is undecided.
  const rows = () =>
    outstanding.length === 0
      ? [{ folded, tenant: null, source_id: null, n: null }]
      : outstanding.map((o) => ({ folded, ...o }));
  const sql = { query: async () => (counts++, { rows: rows(), rowCount: rows().length }) } as unknown as SqlClient;
  const settle = () => jest.advanceTimersByTimeAsync(0);

  beforeEach(() => {
    jest.useFakeTimers();
    counts = 0;
    outstanding = [];
    folded = 0;
  });
  afterEach(() => jest.useRealTimers());

  it('queries nothing in a process that never serves a delivery (a background-only process)', async () => {
    const backpressure = new Backpressure(sql, loadConfig({}));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(counts).toBe(0);
    backpressure.onApplicationShutdown();
  });

  it('counts from the first delivery on, twice a second, and pauses after ten idle seconds until the next one', async () => {
    const backpressure = new Backpressure(sql, loadConfig({}));
    expect(backpressure.check('t', 's')).toBeNull();
    await settle();
    expect(counts).toBe(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(counts).toBe(5);
    await jest.advanceTimersByTimeAsync(60_000);
    const paused = counts;
    expect(paused).toBe(1 + 20); // at once, then every 500 ms up to ten seconds after the delivery
    await jest.advanceTimersByTimeAsync(60_000);
    expect(counts).toBe(paused);
    backpressure.check('t', 's');
    await settle();
    expect(counts).toBe(paused + 1);
    backpressure.onApplicationShutdown();
  });

  it('holds a source at its limit from the counted rows plus its own accepts since', async () => {
    const backpressure = new Backpressure(
      sql,
      loadConfig({ REVEILLE_MAX_OUTSTANDING_PER_SOURCE: '3', REVEILLE_MAX_OUTSTANDING: '4' }),
    );
    outstanding = [{ tenant: 't', source_id: 's', n: 2 }];
    await backpressure.refresh();
    expect(backpressure.check('t', 's')).toBeNull();
    backpressure.accepted('t', 's', 101);
    expect(backpressure.check('t', 's')).toBe('outstanding_source');
    expect(backpressure.check('t', 'other')).toBeNull();
    backpressure.accepted('t', 'other', 102);
    expect(backpressure.check('t', 'other')).toBe('outstanding_global');
    backpressure.onApplicationShutdown();
  });

  it('keeps counting its own accepts across counts until the read model has folded them', async () => {
    const backpressure = new Backpressure(sql, loadConfig({ REVEILLE_MAX_OUTSTANDING_PER_SOURCE: '2' }));
    backpressure.accepted('t', 's', 101);
    backpressure.accepted('t', 's', 102);
    folded = 100; // the read model has not reached them: the counter still says nothing
    await backpressure.refresh();
    expect(backpressure.check('t', 's')).toBe('outstanding_source');
    folded = 101; // the first is folded and counted there, the second not yet
    outstanding = [{ tenant: 't', source_id: 's', n: 1 }];
    await backpressure.refresh();
    expect(backpressure.check('t', 's')).toBe('outstanding_source');
    folded = 102; // both folded, and one of them already decided
    await backpressure.refresh();
    expect(backpressure.check('t', 's')).toBeNull();
    backpressure.onApplicationShutdown();
  });
});
