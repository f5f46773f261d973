import { runMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { allMigrations } from '../../src/app.module.js';
import type { ExecutionEvent } from '../../src/domain/execution/index.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { ProjectionRunner } from '../../src/projections/runner/projection-runner.js';
import type { Projection } from '../../src/projections/runner/projection.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { isExecutionEvent } from '../../src/projections/trigger-health/trigger-health.executions.js';
import { getTriggerHealth } from '../../src/projections/trigger-health/trigger-health.queries.js';
import { freshPglite } from '../support/databases.js';
import {
  admittedEvent,
  appendExecutionEvent,
  appendOccurrence,
  appendTrigger,
  occurrence,
  triggerRevised,
} from './fixtures.js';

const LIFECYCLE = '0313_rm_trigger_health_execution_lifecycle';
const at = (second: number) => `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`;

describe('OP-1 EX-4 upgrading trigger health to count the whole execution lifecycle', () => {
  let sql: SqlClient;
  afterAll(async () => {
    await sql?.close();
  });

  it('sets each execution from its last lifecycle event in the log, recounts, and folds nothing twice afterwards', async () => {
    sql = await freshPglite(allMigrations().filter((m) => m.id !== LIFECYCLE));
    const store = new SqlEventStore(sql);
    await appendTrigger(store, 'acme', 't-1', [triggerRevised('acme', 't-1', 1)]);
    for (const n of [1, 2, 3]) {
      const o = occurrence({ triggerId: 't-1', key: `k-${n}`, observedAt: at(n) });
      await appendOccurrence(store, o, admittedEvent(o, `e-${n}`, at(n)));
    }
    const life = (executionId: string, second: number) => ({
      tenant: 'acme',
      missionId: 'm-1',
      triggerId: 't-1',
      executionId,
      generation: 1,
      attempt: 1,
      at: at(second),
    });
    const failed = (executionId: string, second: number) =>
      ({
        type: 'ExecutionCompleted',
        data: {
          ...life(executionId, second),
          fence: 1,
          outcome: 'failed',
          retryable: true,
          error: null,
          receipt: null,
        },
      }) as ExecutionEvent;
    for (const event of [
      { type: 'ExecutionClaimed', data: { ...life('e-1', 10), fence: 1, consumerId: 'w' } },
      failed('e-1', 11),
      { type: 'ExecutionRetryScheduled', data: { ...life('e-1', 11), nextAttemptAt: at(30) } },
      { type: 'ExecutionClaimed', data: { ...life('e-2', 12), fence: 1, consumerId: 'w' } },
      failed('e-2', 13),
      { type: 'ExecutionDeadLettered', data: { ...life('e-2', 13), reason: 'failed', attempts: 1, lastError: null } },
    ] as ExecutionEvent[])
      await appendExecutionEvent(store, 'acme', event);

    // As a deployment left them: the group folded to the head, counting claims and completions only.
    const withoutExecutions: Projection = {
      ...occurrenceViews,
      applyBatch: (events, tx) =>
        occurrenceViews.applyBatch!(
          events.filter((e) => !isExecutionEvent(e)),
          tx,
        ),
    };
    await new ProjectionRunner(sql, store, withoutExecutions).catchUp();
    await sql.query(`INSERT INTO rm_trigger_health_executions (tenant, execution_id, trigger_id, status)
                     VALUES ('acme', 'e-1', 't-1', 'ended'), ('acme', 'e-2', 't-1', 'ended')`);
    await sql.query(`UPDATE rm_trigger_health SET executions_started = 2, executions_claimed = 0`);

    expect(await runMigrations(sql, allMigrations())).toEqual([LIFECYCLE]);
    const counts = async () => (await getTriggerHealth(sql, 'acme', 't-1'))?.executions;
    expect(await counts()).toEqual({ pending: 1, claimed: 0, retrying: 1, dead: 1 });

    // Folding the same events again (a rebuild's replay of what the map already reflects) moves nothing.
    const events = await store.readAll({ maxCount: 1_000 });
    await sql.transaction(async (tx) => {
      for (const event of events.filter(isExecutionEvent)) await occurrenceViews.apply(event, tx);
    });
    expect(await counts()).toEqual({ pending: 1, claimed: 0, retrying: 1, dead: 1 });
    await new ProjectionRunner(sql, store, occurrenceViews).rebuild();
    expect(await counts()).toEqual({ pending: 1, claimed: 0, retrying: 1, dead: 1 });
  });
});
