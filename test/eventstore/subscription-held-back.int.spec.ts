import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import { Subscription } from '../../src/projections/runner/subscription.js';
import { dropSchema, freshPostgres } from '../support/databases.js';
import { until } from '../support/until.js';

const IDLE_POLL_MS = 3_000;

/**
 * An append is announced after its commit, yet a read may still hold it back while an older transaction anywhere
 * is open (the log's rule 1; in a service, most often another read model's fold). The subscription woken by the
 * announcement then reads nothing new, and used to wait for its idle poll: an admission folded ≈ 100 ms late, one
 * decision → claim in three at a trickle of fires. It now looks again soon while the announced append is unread.
 */
describe('Subscription and an announced append held back (postgres)', () => {
  let sql: PgSqlClient;
  let schema: string;

  beforeAll(async () => {
    ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 4 }));
  });
  afterAll(async () => {
    await sql.close();
    await dropSchema(schema);
  });

  it('EX-2 OP-3 an announced append of its types that a read held back is folded soon after the older transaction ends, not on the idle poll', async () => {
    const signal = new AppendSignal();
    // A read of the store itself, as a subscription makes whose position lies outside the shared tail window (the
    // window retries what it held back for the readers it serves; the others were left to their idle poll).
    const store = new SqlEventStore(sql, undefined, signal, { sharedTail: false });
    await store.append('seed', [{ type: 'Other', data: {}, metadata: {} }], 'no_stream');
    let stored = await store.headPosition();
    const handled: string[] = [];
    const subscription = new Subscription({
      name: 'test:held-back',
      store,
      signal,
      types: ['Wanted'],
      idlePollMs: IDLE_POLL_MS,
      checkpoint: async () => stored,
      handle: async (events, _from, to) => {
        handled.push(...events.map((e) => e.type));
        stored = to;
      },
    });
    subscription.start();
    try {
      await until(async () => subscription.starting === false, 2_000, 5);
      // An older transaction with a transaction id, open on a connection of its own: it holds back what commits after it.
      const release = await holdTailBack(sql);
      await store.append('wanted-1', [{ type: 'Wanted', data: {}, metadata: {} }], 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 100)); // woken, read, found it held back
      expect(handled).toEqual([]);
      const released = Date.now();
      await release(); // ends without telling anyone, as a fold does
      await until(() => handled.includes('Wanted'), IDLE_POLL_MS - 500, 5);
      expect(Date.now() - released).toBeLessThan(1_000);
    } finally {
      await subscription.stop();
    }
  });
});

/** Opens a transaction that takes a transaction id and keeps it open until the answer is called. */
async function holdTailBack(sql: PgSqlClient): Promise<() => Promise<void>> {
  let release!: () => void;
  let opened!: () => void;
  const isOpen = new Promise<void>((resolve) => (opened = resolve));
  const ended = sql.transaction(async (tx) => {
    await tx.query('SELECT txid_current()');
    opened();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await isOpen;
  return async () => {
    release();
    await ended;
  };
}
