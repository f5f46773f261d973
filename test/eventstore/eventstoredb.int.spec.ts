import { EsdbEventStore } from '../../src/adapters/eventstore/esdb/esdb-event-store.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { dropSchema, freshPostgres } from '../support/databases.js';
import { eventStoreConformance } from './conformance.js';

const url = process.env.EVENTSTORE_URL;

if (url) {
  // Only the log is in EventStoreDB: projections and checkpoints stay in PostgreSQL.
  eventStoreConformance('eventstoredb', async () => {
    const { sql, schema } = await freshPostgres(eventStoreMigrations);
    const store = EsdbEventStore.connect(url);
    return {
      store,
      sql,
      // No client transactions in ESDB: each append commits on its own.
      concurrentTransactions: false,
      withUpcasters: (registry) => store.withUpcasters(registry),
      // No tamper: ESDB events are immutable, so the suite only checks the chain verifies.
      unreachable: async () => EsdbEventStore.connect('esdb://127.0.0.1:1?tls=false'),
      close: async () => {
        await store.close();
        await sql.close();
        await dropSchema(schema);
      },
    };
  });
} else {
  // Reported as skipped, never as passed: nothing ran against EventStoreDB.
  describe.skip('EventStore conformance: eventstoredb (skipped: EVENTSTORE_URL not set)', () => {
    it('runs the shared conformance suite against EventStoreDB', () => {});
  });
}
