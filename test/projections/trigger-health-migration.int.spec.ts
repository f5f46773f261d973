import { runMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { allMigrations } from '../../src/app.module.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { occurrencesProjection } from '../../src/projections/occurrences/occurrences.projection.js';
import { ProjectionRunner } from '../../src/projections/runner/projection-runner.js';
import { getTriggerHealth } from '../../src/projections/trigger-health/trigger-health.queries.js';
import { freshPglite } from '../support/databases.js';
import { admittedEvent, appendOccurrence, appendTrigger, occurrence, triggerRevised } from './fixtures.js';

const FOLDS_WITH_OCCURRENCES = '0312_rm_trigger_health_folds_with_occurrences';

describe('OP-3 upgrading to trigger health folded with the Occurrence explorer', () => {
  let sql: SqlClient;
  afterAll(async () => {
    await sql?.close();
  });

  it('drops the old Occurrence map and rebuilds both read models from the log under one checkpoint', async () => {
    sql = await freshPglite(allMigrations().filter((m) => m.id !== FOLDS_WITH_OCCURRENCES));
    const store = new SqlEventStore(sql);
    await appendTrigger(store, 'acme', 't-1', [triggerRevised('acme', 't-1', 1)]);
    const o = occurrence({ triggerId: 't-1', key: 'k-1', observedAt: '2026-03-01T10:00:00.000Z' });
    await appendOccurrence(store, o, admittedEvent(o, 'e-1', '2026-03-01T10:00:01.000Z'));
    // As a deployment left them: the explorer folded to the head under its own checkpoint, trigger health not at all.
    await new ProjectionRunner(sql, store, occurrencesProjection).catchUp();

    await runMigrations(sql, allMigrations());

    const { rows } = await sql.query<{ map: string | null; occurrences: number; checkpoints: number }>(
      `SELECT to_regclass('rm_trigger_health_occurrences')::text AS map, (SELECT count(*)::int FROM rm_occurrences) AS occurrences,
              (SELECT count(*)::int FROM checkpoints WHERE name IN ('projection:occurrences', 'projection:trigger-health')) AS checkpoints`,
    );
    expect(rows[0]).toEqual({ map: null, occurrences: 0, checkpoints: 0 });
    await new ProjectionRunner(sql, store, occurrenceViews).catchUp();
    expect(await getTriggerHealth(sql, 'acme', 't-1')).toMatchObject({
      counts: { observed: 1, admitted: 1 },
      lastOccurrence: { occurrenceId: o.occurrenceId, status: 'admitted' },
    });
  });
});
