import type { RecordedEvent } from '../../domain/ports/event-store.js';
import {
  LIFECYCLE_EVENT_TYPES,
  type ExecutionClaimed,
  type ExecutionCompleted,
  type ExecutionDeadLettered,
  type LifecycleEvent,
  type ExecutionRetryScheduled,
  type ExecutionSettled,
} from '../../domain/execution/index.js';
import { OCCURRENCE_PAYLOAD_PATHS, type OccurrenceAdmitted } from '../../domain/occurrence/occurrence-events.js';
import { msSql } from '../occurrences/cursor.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import type { SqlQuery } from '../sql-client.js';
import { executionsMigrations } from './executions.migrations.js';

export const EXECUTIONS_PROJECTION = 'executions';

const HANDLES: readonly string[] = ['OccurrenceAdmitted', 'OccurrenceBatched', ...LIFECYCLE_EVENT_TYPES];

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/** Every statement reads and writes its execution's row alone. */
const touched = (tenant: string, executionId: string) => JSON.stringify([tenant, executionId]);

function admitted(event: RecordedEvent<OccurrenceAdmitted['data']>): SqlQuery {
  const { request, decidedAt } = event.data;
  return {
    text: `INSERT INTO rm_executions (tenant, execution_id, occurrence_id, trigger_id, mission_id, lane, status, generation,
             attempt, max_runtime_seconds, admitted_at, admitted_position, last_position)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', 1, 1, $7, ${msSql('$8')}, $9, $9)
           ON CONFLICT (tenant, execution_id) DO NOTHING`,
    touches: touched(request.tenant, request.executionId),
    values: [
      request.tenant,
      request.executionId,
      request.occurrenceId,
      request.triggerId,
      request.missionId,
      request.lane,
      request.delivery?.maxRuntimeSeconds ?? null,
      decidedAt ?? request.firedAt,
      event.position,
    ],
  };
}

/**
 * `$1` tenant, `$2` execution, `$3` this event's position, `$4` generation, `$5` attempt (absent on events
 * recorded before retries), then the event's own values from `$6`. An execution's events are appended one
 * after another, each after reading the last, so their positions grow: an event at or below `last_position`
 * is a replay and changes nothing.
 */
function lifecycle(
  event: RecordedEvent,
  set: string,
  own: unknown[] = [],
  attempt = 'COALESCE($5::int, attempt)',
): SqlQuery {
  const d = event.data as LifecycleEvent['data'];
  return {
    text: `UPDATE rm_executions SET ${set}, generation = $4, attempt = ${attempt}, last_position = $3
            WHERE tenant = $1 AND execution_id = $2 AND last_position < $3`,
    touches: touched(d.tenant, d.executionId),
    values: [d.tenant, d.executionId, event.position, d.generation, d.attempt ?? null, ...own],
  };
}

/** A redelivery without a recorded attempt counts one more, as the domain does. */
const NEXT_ATTEMPT = 'COALESCE($5::int, attempt + 1)';
const ENDS_CLAIM = 'consumer_id = NULL, claimed_at = NULL, next_attempt_at = NULL';

/** EX-2..EX-4, mirroring the domain's evolve: the same event leaves the same row as it leaves the state. */
export function evolveExecutions(event: RecordedEvent): SqlQuery[] {
  const type = event.type as LifecycleEvent['type'] | 'OccurrenceAdmitted' | 'OccurrenceBatched';
  switch (type) {
    case 'OccurrenceAdmitted':
      return [admitted(event as RecordedEvent<OccurrenceAdmitted['data']>)];
    case 'OccurrenceBatched':
      // BA-1: the first member's decision carries the batch's request; the others only name the execution.
      return (event.data as { request?: unknown }).request
        ? [admitted(event as RecordedEvent<OccurrenceAdmitted['data']>)]
        : [];
    case 'ExecutionClaimed': {
      const d = (event as RecordedEvent<ExecutionClaimed['data']>).data;
      return [
        lifecycle(
          event,
          `status = 'claimed', consumer_id = $6, claimed_at = ${msSql('$7')},
           fence = $8, next_attempt_at = NULL`,
          [d.consumerId, d.at, d.fence],
        ),
      ];
    }
    case 'ExecutionCompleted': {
      const d = (event as RecordedEvent<ExecutionCompleted['data']>).data;
      const completion = { fence: d.fence, outcome: d.outcome, retryable: d.retryable ?? false, at: d.at };
      return [
        lifecycle(
          event,
          `status = CASE WHEN $6::text = 'failed' THEN 'failed' ELSE 'completed' END, ${ENDS_CLAIM},
           completion = $7::jsonb, last_error = COALESCE($8::jsonb, CASE WHEN $6::text = 'failed' THEN last_error END)`,
          [d.outcome, json(completion), json(d.error)],
        ),
      ];
    }
    case 'ExecutionRetryScheduled': {
      const d = (event as RecordedEvent<ExecutionRetryScheduled['data']>).data;
      return [
        lifecycle(
          event,
          `status = 'retrying', consumer_id = NULL, claimed_at = NULL, next_attempt_at = ${msSql('$6')}`,
          [d.nextAttemptAt],
        ),
      ];
    }
    case 'ExecutionRedelivered':
      return [lifecycle(event, `status = 'pending', ${ENDS_CLAIM}`, [], NEXT_ATTEMPT)];
    case 'ExecutionDeadLettered': {
      const d = (event as RecordedEvent<ExecutionDeadLettered['data']>).data;
      return [
        lifecycle(
          event,
          `status = 'dead_lettered', ${ENDS_CLAIM}, dead_reason = $6, dead_attempts = $7, dead_lettered_at = ${msSql('$8')},
           last_error = COALESCE($9::jsonb, last_error)`,
          [d.reason, d.attempts, d.at, json(d.lastError)],
        ),
      ];
    }
    case 'ExecutionSettled': {
      const d = (event as RecordedEvent<ExecutionSettled['data']>).data;
      const settlement = { settlementId: d.settlementId, decision: d.decision, fence: d.fence, at: d.at };
      return [lifecycle(event, `status = 'noncommitted', ${ENDS_CLAIM}, settlement = $6::jsonb`, [json(settlement)])];
    }
    case 'RecoveryRequested':
      // The dead letter or tombstone it recovered from stays in the history (detail view), not on the row.
      return [
        lifecycle(
          event,
          `status = 'pending', ${ENDS_CLAIM}, settlement = NULL, dead_reason = NULL, dead_attempts = NULL, dead_lettered_at = NULL`,
          [],
          NEXT_ATTEMPT,
        ),
      ];
    default: {
      const _: never = type;
      return [];
    }
  }
}

/** EX-4 read model behind `GET /v1/executions` and the dead-letter queue. */
export const executionsProjection: Projection = statementProjection({
  name: EXECUTIONS_PROJECTION,
  handles: HANDLES,
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: executionsMigrations,
  tables: ['rm_executions'],
  readIndexes: ['rm_executions_by_status', 'rm_executions_by_trigger', 'rm_executions_by_mission'],
  evolve: evolveExecutions,
});
