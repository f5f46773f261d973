import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import type { NewEvent } from '../../src/domain/ports/event-store.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import { Subscription } from '../../src/projections/runner/subscription.js';
import pg from 'pg';
import { TEST_DATABASE_URL, dropSchema, freshPostgres } from '../support/databases.js';
import { until } from '../support/until.js';

/** Far longer than any wait below: a subscription that falls back on its idle poll fails the test. */
const IDLE_POLL_MS = 10_000;
const event = (n: number): NewEvent => ({ type: 'Tested', data: { n }, metadata: {} });

/**
 * A subscriber hears of appends at once (OP-3, and `?wait=decision` behind admission): an append told while it was
 * reading may not wait for its idle poll. In a closed loop of clients waiting for decisions, one such wait held
 * every client for the whole poll.
 */
describe('Subscription wake-ups (postgres)', () => {
  let sql: PgSqlClient;
  let schema: string;
  let store: SqlEventStore;
  let signal: AppendSignal;
  let subscription: Subscription;
  const handled: number[] = [];
  let checkpoint = 0;
  /** Set by a test: runs after a read has returned and before the subscription sees its page. */
  let afterRead: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 4 }));
    signal = new AppendSignal();
    store = new SqlEventStore(sql, undefined, signal);
    const reading = new Proxy(store, {
      get: (target, name) => {
        if (name !== 'readAll') return Reflect.get(target, name);
        return async (...args: Parameters<SqlEventStore['readAll']>) => {
          const page = await target.readAll(...args);
          const hook = afterRead;
          afterRead = null;
          await hook?.();
          return page;
        };
      },
    });
    subscription = new Subscription({
      name: 'test:wakeups',
      store: reading,
      signal,
      idlePollMs: IDLE_POLL_MS,
      checkpoint: async () => checkpoint,
      handle: async (events, _from, to) => {
        handled.push(...events.map((e) => (e.data as { n: number }).n));
        checkpoint = to;
      },
    });
    subscription.start();
    await store.append('s-0', [event(0)], 'no_stream');
    await until(() => handled.includes(0), 2_000, 5);
  });
  afterAll(async () => {
    await subscription.stop();
    await sql.close();
    await dropSchema(schema);
  });

  it('OP-3 an append told while the subscriber was reading (its page already taken) is read at once after', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50)); // idle, waiting on the signal
    // The next read's page is taken before this append commits; the append is told while that read is still out.
    afterRead = () => store.append('s-1', [event(1)], 'no_stream').then(() => undefined);
    signal.notify(['Unrelated']); // wakes it for a read (unfiltered subscriber) whose page holds nothing new
    await until(() => handled.includes(1), 2_000, 5);
    expect(handled).toContain(1);
  });

  it('OP-3 an append held back behind a transaction that ends without telling anyone is read soon after it ends', async () => {
    // Another writer on the cluster (a fold, another process): while it is open, rule 1 holds later appends back.
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      await store.append('s-2', [event(2)], 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 200)); // the subscriber read it held back
      expect(handled).not.toContain(2);
      await other.query('COMMIT'); // tells nothing
      await until(() => handled.includes(2), 2_000, 5);
    } finally {
      await other.end();
    }
  });
});
