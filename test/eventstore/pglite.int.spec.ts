import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { freshPglite } from '../support/databases.js';
import { eventStoreConformance } from './conformance.js';

eventStoreConformance('pglite', async () => {
  const sql = await freshPglite(eventStoreMigrations);
  const store = new SqlEventStore(sql);
  return {
    store,
    sql,
    // One embedded connection: transactions run one at a time, so there is no in-flight window to test.
    concurrentTransactions: false,
    withUpcasters: (registry) => new SqlEventStore(sql, registry),
    inTransaction: (work) => sql.transaction((tx) => work(store.within(tx))),
    tamper: async (streamId, revision) => {
      await sql.query(`UPDATE events SET data = jsonb_set(data, '{n}', '999') WHERE stream_id = $1 AND revision = $2`, [
        streamId,
        revision,
      ]);
    },
    close: () => sql.close(),
  };
});
