import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { dropSchema, freshPostgres } from '../support/databases.js';
import { eventStoreConformance } from './conformance.js';

eventStoreConformance('postgres', async () => {
  const { sql, schema } = await freshPostgres(eventStoreMigrations, { max: 30 });
  const store = new SqlEventStore(sql);
  return {
    store,
    sql,
    concurrentTransactions: true,
    withUpcasters: (registry) => new SqlEventStore(sql, registry),
    inTransaction: (work) => sql.transaction((tx) => work(store.within(tx))),
    tamper: async (streamId, revision) => {
      await sql.query(`UPDATE events SET data = jsonb_set(data, '{n}', '999') WHERE stream_id = $1 AND revision = $2`, [
        streamId,
        revision,
      ]);
    },
    unreachable: async () =>
      new SqlEventStore(
        await PgSqlClient.connect({ connectionString: 'postgres://postgres@127.0.0.1:1/test', max: 1 }),
      ),
    close: async () => {
      await sql.close();
      await dropSchema(schema);
    },
  };
});
