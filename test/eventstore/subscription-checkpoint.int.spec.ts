import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { CheckpointConflict } from '../../src/projections/runner/checkpoints.js';
import { Subscription } from '../../src/projections/runner/subscription.js';
import { dropSchema, freshPostgres } from '../support/databases.js';
import { until } from '../support/until.js';

const IDLE_POLL_MS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An idle subscription reads its stored checkpoint about once a second, not on every idle poll (OP-3): an idle
 * service's dozen subscriptions read theirs 110 times a second before, one query each, for nothing.
 */
describe('Subscription checkpoint reads while idle (postgres)', () => {
  let sql: PgSqlClient;
  let schema: string;
  let store: SqlEventStore;

  beforeAll(async () => {
    ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 2 }));
    store = new SqlEventStore(sql);
  });
  afterAll(async () => {
    await sql.close();
    await dropSchema(schema);
  });

  it('OP-3 a subscription that never handled a page reads its checkpoint once a second, and a moved one within it', async () => {
    let stored = 0;
    let reads = 0;
    const handled: number[] = [];
    const subscription = new Subscription({
      name: 'test:idle-checkpoint',
      store,
      idlePollMs: IDLE_POLL_MS,
      checkpoint: async () => {
        reads++;
        return stored;
      },
      handle: async (events, _from, to) => {
        handled.push(...events.map((e) => e.position));
        stored = to;
      },
    });
    // Two events are there, and the stored checkpoint is already past them (another runner handled them).
    await store.append('s-1', [{ type: 'Tested', data: { n: 1 }, metadata: {} }], 'no_stream');
    await store.append('s-2', [{ type: 'Tested', data: { n: 2 }, metadata: {} }], 'no_stream');
    stored = await store.headPosition();
    subscription.start();
    try {
      await sleep(1_500); // ≈ 75 idle polls
      expect(handled).toEqual([]);
      expect(reads).toBeGreaterThanOrEqual(1);
      expect(reads).toBeLessThanOrEqual(3);

      // A rebuild moves it back: the subscription reads the stored one again within the recheck, and follows it.
      const [first] = await store.readAll({ after: 0, maxCount: 1 });
      stored = 0;
      await until(() => handled.length === 2, 3_000, 10);
      expect(handled[0]).toBe(first!.position);
    } finally {
      await subscription.stop();
    }
  });

  it('OP-4 a runner that lost its checkpoint to another runner (a second process) reads on: no error, not failing', async () => {
    let stored = await store.headPosition();
    const errors: unknown[] = [];
    let conflicts = 0;
    const handled: number[] = [];
    const subscription = new Subscription({
      name: 'test:lost-race',
      store,
      idlePollMs: IDLE_POLL_MS,
      checkpoint: async () => stored,
      handle: async (events, from, to) => {
        // The first page is folded by the other runner meanwhile: its compare-and-set moves the checkpoint first.
        if (conflicts === 0) {
          conflicts++;
          stored = to;
          throw new CheckpointConflict('test:lost-race');
        }
        expect(from).toBe(stored);
        handled.push(...events.map((e) => e.position));
        stored = to;
      },
      onError: (error) => errors.push(error),
    });
    await store.append('s-3', [{ type: 'Tested', data: { n: 3 }, metadata: {} }], 'no_stream');
    subscription.start();
    try {
      await until(() => conflicts === 1, 3_000, 10);
      await store.append('s-4', [{ type: 'Tested', data: { n: 4 }, metadata: {} }], 'no_stream');
      await until(() => handled.length === 1, 3_000, 10);
      expect(errors).toEqual([]);
      expect(subscription.error).toBeNull();
    } finally {
      await subscription.stop();
    }
  });
});
