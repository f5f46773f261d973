import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlQuery } from '../sql-client.js';
import type {
  ExecutionClaimed,
  ExecutionCompleted,
  ExecutionEvent,
  ExecutionSettled,
} from '../../domain/execution/index.js';

export const EXECUTION_EVENT_TYPES: readonly ExecutionEvent['type'][] = [
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionSettled',
];

export const isExecutionEvent = (event: RecordedEvent): boolean =>
  (EXECUTION_EVENT_TYPES as readonly string[]).includes(event.type);

/*
 * Every admission requests an execution, so `pending` is `admitted − started`. The map row of an execution only
 * moves forward (claimed → ended), so a replayed event finds nothing to move and counts nothing twice.
 */

const bump = (
  set: string,
) => `UPDATE rm_trigger_health h SET ${set}, last_position = GREATEST(h.last_position, $4::bigint)
  FROM moved m WHERE h.tenant = m.tenant AND h.trigger_id = m.trigger_id`;

function claimed(event: RecordedEvent<ExecutionClaimed['data']>): SqlQuery {
  const d = event.data;
  return {
    text: `WITH moved AS (
             INSERT INTO rm_trigger_health_executions (tenant, execution_id, trigger_id, status) VALUES ($1, $2, $3, 'claimed')
             ON CONFLICT (tenant, execution_id) DO NOTHING RETURNING tenant, trigger_id)
           ${bump('executions_started = h.executions_started + 1, executions_claimed = h.executions_claimed + 1')}`,
    values: [d.tenant, d.executionId, d.triggerId, event.position],
  };
}

function completed(event: RecordedEvent<ExecutionCompleted['data']>): SqlQuery {
  const d = event.data;
  return {
    text: `WITH moved AS (
             UPDATE rm_trigger_health_executions SET status = 'ended'
              WHERE tenant = $1 AND execution_id = $2 AND trigger_id = $3 AND status = 'claimed' RETURNING tenant, trigger_id)
           ${bump('executions_claimed = h.executions_claimed - 1')}`,
    values: [d.tenant, d.executionId, d.triggerId, event.position],
  };
}

/** A settlement ends a claimed execution, or one nobody claimed (which then starts and ends at once). */
function settled(event: RecordedEvent<ExecutionSettled['data']>): SqlQuery {
  const d = event.data;
  return {
    text: `WITH was AS (SELECT status FROM rm_trigger_health_executions WHERE tenant = $1 AND execution_id = $2),
           moved AS (
             INSERT INTO rm_trigger_health_executions AS e (tenant, execution_id, trigger_id, status) VALUES ($1, $2, $3, 'ended')
             ON CONFLICT (tenant, execution_id) DO UPDATE SET status = 'ended' WHERE e.status = 'claimed' RETURNING tenant, trigger_id)
           ${bump(`executions_started = h.executions_started + (NOT EXISTS (SELECT 1 FROM was))::int,
                   executions_claimed = h.executions_claimed - (EXISTS (SELECT 1 FROM was))::int`)}`,
    values: [d.tenant, d.executionId, d.triggerId, event.position],
  };
}

/** OP-1 `executions` of the Trigger health row. */
export function evolveExecutionCounts(event: RecordedEvent): SqlQuery[] {
  const type = event.type as ExecutionEvent['type'];
  switch (type) {
    case 'ExecutionClaimed':
      return [claimed(event as RecordedEvent<ExecutionClaimed['data']>)];
    case 'ExecutionCompleted':
      return [completed(event as RecordedEvent<ExecutionCompleted['data']>)];
    case 'ExecutionSettled':
      return [settled(event as RecordedEvent<ExecutionSettled['data']>)];
    case 'ExecutionRetryScheduled':
    case 'ExecutionRedelivered':
    case 'ExecutionDeadLettered':
    case 'RecoveryRequested':
      return [];
    default: {
      const _: never = type;
      return [];
    }
  }
}
