import pg from 'pg';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { LogHeldBackError, verifyLog } from '../../src/commands/audit/verify-log.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';

/**
 * AU-2: a verdict covers the whole log as of the pass's start. An older transaction still open anywhere in the
 * cluster holds later commits back from readAll; the pass waits for them instead of leaving them unchecked.
 */
describe('AU-2 audit verify reads up to the head it started at (postgres)', () => {
  let sql: PgSqlClient;
  let schema: string;
  let store: SqlEventStore;
  let holder: pg.Client;
  let n = 0;
  const appendOne = () =>
    store.append(`probe-${++n}`, [{ type: 'ProbeRecorded', data: { n }, metadata: {} }], 'no_stream');

  beforeAll(async () => {
    ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 4 }));
    store = new SqlEventStore(sql);
    await appendOne();
  });
  beforeEach(async () => {
    // An older transaction with an id, open across the next append: the append's row stays past the snapshot's xmin.
    holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
  });
  afterEach(async () => {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  });
  afterAll(async () => {
    await sql.close();
    await dropSchema(schema);
  });

  it('AU-2 waits for a commit held back by an open transaction and checks it', async () => {
    const held = await appendOne();
    expect((await store.readAll({ maxCount: 100 })).map((e) => e.position)).not.toContain(held.position);
    let ended = false;
    const verified = verifyLog(store).finally(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ended).toBe(false);
    await holder.query('COMMIT');
    const summary = await verified;
    expect(summary.events).toBe(n);
    expect(summary.violations).toBe(0);
  });

  it('AU-2 fails loudly, naming the head and how far it checked, when the transaction stays open', async () => {
    const checkedTo = (await store.readAll({ maxCount: 100 })).at(-1)!.position;
    const held = await appendOne();
    const failure = await verifyLog(store, { heldBackMs: 200 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LogHeldBackError);
    expect((failure as Error).name).toBe('LogHeldBack');
    expect(failure).toMatchObject({ head: held.position, checkedTo });
    expect((failure as Error).message).toContain(`up to position ${held.position} stayed held back`);
  });
});
