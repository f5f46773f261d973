import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { IdempotencyStore, type KeyRequest } from '../../src/adapters/http/idempotency/idempotency.store.js';
import { allMigrations } from '../../src/app.module.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { dropSchema, freshPglite, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';

const request = (key: string): KeyRequest => ({
  tenant: 'acme',
  key,
  operation: 'PUT /v1/missions/{missionId} m-1',
  fingerprint: 'f'.repeat(64),
});

/** Two IdempotencyStores on two connections stand for two processes sharing one database. */
describe('SEC-3 an in-flight key is taken over only from a holder that is gone', () => {
  describe('on PostgreSQL, where a holder is its own session', () => {
    let schema: string;
    let first: PgSqlClient;
    let second: PgSqlClient;
    beforeAll(async () => {
      ({ sql: first, schema } = await freshPostgres(allMigrations(), { max: 2 }));
      second = await PgSqlClient.connect({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
      await dropSchema(schema);
    });

    it('answers in_flight while the holding process lives, and hands the key over the moment it is gone', async () => {
      const holder = new IdempotencyStore(first, 24);
      const retrier = new IdempotencyStore(second, 24);
      expect(await holder.claim(request('k-live'))).toEqual({ kind: 'claimed' });
      expect(await retrier.claim(request('k-live'))).toEqual({ kind: 'in_flight' });
      const { rows } = await second.query<{ holder: string; held: boolean }>(
        `SELECT holder, lease_until > now() AS held FROM idempotency_keys WHERE key = 'k-live'`,
      );
      expect(rows[0]).toMatchObject({ holder: expect.stringMatching(/^pg:\d+:/), held: true });

      await holder.onApplicationShutdown(); // its session ends, as a SIGKILL ends it
      await until(async () => {
        const taken = await retrier.claim(request('k-live'));
        return taken.kind === 'claimed' && taken.takenOver === true;
      });
      // Now the retrier holds it, alive: a third try is in flight again
      const third = new IdempotencyStore(first, 24);
      expect(await third.claim(request('k-live'))).toEqual({ kind: 'in_flight' });
      await Promise.all([retrier.onApplicationShutdown(), third.onApplicationShutdown()]);
    });

    it('never takes over a key whose holder could not be named: only its lease frees it', async () => {
      const anonymous = new IdempotencyStore(withoutSessions(first), 24);
      expect(await anonymous.claim(request('k-anon'))).toEqual({ kind: 'claimed' });
      const retrier = new IdempotencyStore(second, 24);
      expect(await retrier.claim(request('k-anon'))).toEqual({ kind: 'in_flight' });
      await retrier.onApplicationShutdown();
    });
  });

  it('on PGlite, where one process holds the store, another holder is gone', async () => {
    const sql = await freshPglite(allMigrations());
    try {
      expect(await new IdempotencyStore(sql, 24).claim(request('k-1'))).toEqual({ kind: 'claimed' });
      const same = new IdempotencyStore(sql, 24);
      // A takeover says so: the run may find what the first one committed (claim-next and schedule decisions ask).
      expect(await same.claim(request('k-1'))).toEqual({ kind: 'claimed', takenOver: true });
      expect(await same.claim(request('k-1'))).toEqual({ kind: 'in_flight' });
    } finally {
      await sql.close();
    }
  });
});

function withoutSessions(sql: SqlClient): SqlClient {
  return {
    kind: sql.kind,
    query: (q, v) => sql.query(q, v),
    exec: (s) => sql.exec(s),
    transaction: (w) => sql.transaction(w),
    close: () => sql.close(),
  };
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
