import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import { runMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { runStatements } from '../../src/projections/runner/statement-script.js';
import { allMigrations } from '../../src/app.module.js';
import { evolveOccurrences } from '../../src/projections/occurrences/occurrences.projection.js';
import { freshPglite } from '../support/databases.js';

const OUTSTANDING = '0302_rm_outstanding';

describe('WH-8 upgrading to the per-source count of undecided Occurrences', () => {
  let sql: SqlClient;
  afterAll(async () => {
    await sql?.close();
  });

  const row = (occurrenceId: string, status: string, sourceId: string | null) =>
    sql.query(
      `INSERT INTO rm_occurrences (tenant, occurrence_id, trigger_id, trigger_revision, mission_id, kind, status, auth, observed_at, dedupe_identity, causal, evidence, last_position)
       VALUES ('acme', $1, 't-1', 1, 'm-1', 'webhook', $2, $3::jsonb, now(), '{}', '{}', '{}', 1)`,
      [occurrenceId, status, JSON.stringify({ state: 'verified', sourceId })],
    );

  it('counts the undecided rows an earlier deployment left, drops the status index, and moves on from there', async () => {
    sql = await freshPglite(allMigrations().filter((m) => m.id !== OUTSTANDING));
    // As a deployment left them: undecided and decided rows of one source, and an undecided manual one.
    await row('o-1', 'observed', 'gh');
    await row('o-2', 'observed', 'gh');
    await row('o-3', 'admitted', 'gh');
    await row('o-4', 'observed', null);

    expect(await runMigrations(sql, allMigrations())).toEqual([OUTSTANDING]);

    const counted = async () =>
      (await sql.query<{ source_id: string; undecided: number }>('SELECT source_id, undecided FROM rm_outstanding'))
        .rows;
    expect(await counted()).toEqual([{ source_id: 'gh', undecided: 2 }]);
    const index = await sql.query<{ name: string | null }>(
      `SELECT to_regclass('rm_occurrences_outstanding')::text AS name`,
    );
    expect(index.rows[0]!.name).toBeNull();

    const decision: RecordedEvent = {
      id: randomUUID(),
      streamId: 'occurrence-o-1',
      revision: 1,
      position: 10,
      type: 'OccurrenceAdmitted',
      schemaVersion: 1,
      data: {
        occurrenceId: 'o-1',
        executionId: 'e-1',
        firedAt: '2026-03-01T11:00:00.000Z',
        decidedAt: '2026-03-01T11:00:00.000Z',
        request: {},
      },
      metadata: { tenant: 'acme' },
      recordedAt: '',
      hash: '',
      prevHash: null,
    };
    await sql.transaction((tx) => runStatements(tx, evolveOccurrences(decision)));
    expect(await counted()).toEqual([{ source_id: 'gh', undecided: 1 }]);
    await sql.transaction((tx) => runStatements(tx, evolveOccurrences(decision))); // a replay decides nothing twice
    expect(await counted()).toEqual([{ source_id: 'gh', undecided: 1 }]);
  });
});
