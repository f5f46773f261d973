import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { ExecutionClaimed, ExecutionCompleted, ExecutionSettled } from '../../domain/execution/index.js';
import { OCCURRENCE_PAYLOAD_PATHS, type OccurrenceAdmitted } from '../../domain/occurrence/occurrence-events.js';
import type { SqlQuery } from '../sql-client.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import { pendingExecutionsMigrations } from './pending-executions.migrations.js';

export const PENDING_EXECUTIONS_PROJECTION = 'pending-executions';

type Handled = OccurrenceAdmitted | ExecutionClaimed | ExecutionCompleted | ExecutionSettled;
const HANDLES: readonly Handled['type'][] = [
  'OccurrenceAdmitted',
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionSettled',
];

/**
 * A row lives from admission to the terminal event. Events arrive in log order with the checkpoint in the
 * same transaction, so a replayed batch re-inserts and deletes exactly as the first time did.
 */
export function evolvePendingExecutions(event: RecordedEvent): SqlQuery[] {
  switch (event.type as Handled['type']) {
    case 'OccurrenceAdmitted': {
      const { request } = (event as RecordedEvent<OccurrenceAdmitted['data']>).data;
      return [
        {
          text: `INSERT INTO rm_pending_executions
                   (execution_id, tenant, mission_id, trigger_id, lane, position, claimed, holds_slot, max_concurrent)
                 VALUES ($1, $2, $3, $4, $5, $6, false, $7, $8)
                 ON CONFLICT (execution_id) DO NOTHING`,
          values: [
            request.executionId,
            request.tenant,
            request.missionId,
            request.triggerId,
            request.lane,
            event.position,
            request.slotTakenAt !== 'claim',
            request.limits.maxConcurrent,
          ],
        },
      ];
    }
    case 'ExecutionClaimed': {
      const { executionId } = (event as RecordedEvent<ExecutionClaimed['data']>).data;
      return [
        {
          text: `UPDATE rm_pending_executions SET claimed = true, holds_slot = true WHERE execution_id = $1`,
          values: [executionId],
        },
      ];
    }
    case 'ExecutionCompleted':
    case 'ExecutionSettled': {
      const { executionId } = (event as RecordedEvent<ExecutionCompleted['data'] | ExecutionSettled['data']>).data;
      return [{ text: `DELETE FROM rm_pending_executions WHERE execution_id = $1`, values: [executionId] }];
    }
    default:
      return [];
  }
}

export const pendingExecutionsProjection: Projection = statementProjection({
  name: PENDING_EXECUTIONS_PROJECTION,
  handles: HANDLES,
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: pendingExecutionsMigrations,
  tables: ['rm_pending_executions'],
  evolve: evolvePendingExecutions,
});
