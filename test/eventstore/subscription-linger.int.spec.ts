import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import type { NewEvent } from '../../src/domain/ports/event-store.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { Subscription } from '../../src/projections/runner/subscription.js';
import { freshPglite } from '../support/databases.js';

const LINGER_MS = 1_500;
const event = (n: number): NewEvent => ({ type: 'Tested', data: { n }, metadata: {} });

/**
 * OP-3 read models stay fresh when the log is quiet and batch under load: a subscription lingers
 * after a batch only when the batch was large (load), never after a small one (a lone write).
 */
describe('Subscription linger (read-model freshness vs batching)', () => {
  let sql: SqlClient;
  let store: SqlEventStore;
  let subscription: Subscription;
  const batches: Array<{ at: number; ns: number[] }> = [];
  let checkpoint = 0;

  beforeAll(async () => {
    sql = await freshPglite(eventStoreMigrations);
    const signal = new AppendSignal();
    store = new SqlEventStore(sql, undefined, signal);
    subscription = new Subscription({
      name: 'test:linger',
      store,
      signal,
      idlePollMs: 5_000,
      lingerMs: LINGER_MS,
      lingerAfter: 4,
      checkpoint: async () => checkpoint,
      handle: async (events, _from, to) => {
        if (events.length > 0) batches.push({ at: Date.now(), ns: events.map((e) => (e.data as { n: number }).n) });
        checkpoint = to;
      },
    });
    subscription.start();
  });
  afterAll(async () => {
    await subscription.stop();
    await sql.close();
  });

  /** When the batch holding event n was handled; undefined if not within `withinMs`. */
  const waitFor = async (n: number, withinMs: number) => {
    const handledAt = () => batches.find((b) => b.ns.includes(n))?.at;
    const deadline = Date.now() + withinMs;
    while (handledAt() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    return handledAt();
  };

  it('handles a lone write right after the previous small batch, with no linger', async () => {
    await store.append('s-quiet', [event(1)], 'no_stream');
    expect(await waitFor(1, 1_000)).toBeDefined();
    const appendedAt = Date.now();
    await store.append('s-quiet', [event(2)], 0);
    const handledAt = await waitFor(2, 1_000);
    expect(handledAt).toBeDefined();
    expect(handledAt! - appendedAt).toBeLessThan(LINGER_MS / 2);
  });

  it('lingers after a large batch, so what arrives meanwhile is handled together after the linger', async () => {
    await store.append('s-load', [event(10), event(11), event(12), event(13), event(14)], 'no_stream');
    expect(await waitFor(14, 1_000)).toBeDefined();
    await store.append('s-load', [event(15)], 4);
    await store.append('s-load', [event(16)], 5);
    expect(await waitFor(16, LINGER_MS * 3)).toBeDefined();
    const large = batches.findIndex((b) => b.ns.includes(14));
    const after = batches
      .slice(large + 1)
      .map((b) => ({ ns: b.ns, lingered: b.at - batches[large]!.at >= LINGER_MS - 50 }));
    expect(after).toEqual([{ ns: [15, 16], lingered: true }]);
    expect(batches.flatMap((b) => b.ns)).toEqual([1, 2, 10, 11, 12, 13, 14, 15, 16]);
  });
});
