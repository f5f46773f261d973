import type { RecordedEvent } from '../../adapters/eventstore/event-store.port.js';
import type { SqlQuery } from '../../adapters/eventstore/sql/sql-client.js';
import type { ExecutionClaimed, ExecutionCompleted, ExecutionEvent, ExecutionRequested, ExecutionSettled } from '../../domain/execution/index.js';

export const EXECUTION_EVENT_TYPES: readonly ExecutionEvent['type'][] = ['ExecutionRequested', 'ExecutionClaimed', 'ExecutionCompleted', 'ExecutionSettled'];

export const isExecutionEvent = (event: RecordedEvent): boolean => (EXECUTION_EVENT_TYPES as readonly string[]).includes(event.type);

type Stage = 'pending' | 'claimed' | 'ended';

/**
 * Moves one execution between stages in the map and the Trigger's counters with it. The map row
 * only moves forward from the stages named, so a replayed event finds nothing to move and counts
 * nothing twice.
 */
function move(tenant: string, executionId: string, from: Stage[], to: Stage, position: number): SqlQuery {
  return {
    text: `WITH was AS (
             SELECT tenant, trigger_id, status FROM rm_trigger_health_executions
              WHERE tenant = $1 AND execution_id = $2 AND status = ANY($3::text[]) FOR UPDATE),
           moved AS (
             UPDATE rm_trigger_health_executions e SET status = $4 FROM was
              WHERE e.tenant = was.tenant AND e.execution_id = $2 RETURNING was.tenant, was.trigger_id, was.status AS was)
           UPDATE rm_trigger_health h
              SET executions_pending = h.executions_pending - (m.was = 'pending')::int + ($4 = 'pending')::int,
                  executions_claimed = h.executions_claimed - (m.was = 'claimed')::int + ($4 = 'claimed')::int,
                  last_position = GREATEST(h.last_position, $5::bigint)
             FROM moved m WHERE h.tenant = m.tenant AND h.trigger_id = m.trigger_id`,
    values: [tenant, executionId, from, to, position],
  };
}

function requested(event: RecordedEvent<ExecutionRequested['data']>): SqlQuery {
  const { tenant, triggerId, executionId } = event.data.request;
  return {
    text: `WITH added AS (
             INSERT INTO rm_trigger_health_executions (tenant, execution_id, trigger_id, status) VALUES ($1, $2, $3, 'pending')
             ON CONFLICT (tenant, execution_id) DO NOTHING RETURNING tenant, trigger_id)
           UPDATE rm_trigger_health h SET executions_pending = h.executions_pending + 1, last_position = GREATEST(h.last_position, $4::bigint)
             FROM added a WHERE h.tenant = a.tenant AND h.trigger_id = a.trigger_id`,
    values: [tenant, executionId, triggerId, event.position],
  };
}

/** OP-1 `executions: { pending, claimed }` of the Trigger health row, from the execution streams. */
export function evolveExecutionCounts(event: RecordedEvent): SqlQuery[] {
  const type = event.type as ExecutionEvent['type'];
  switch (type) {
    case 'ExecutionRequested':
      return [requested(event as RecordedEvent<ExecutionRequested['data']>)];
    case 'ExecutionClaimed': {
      const d = (event as RecordedEvent<ExecutionClaimed['data']>).data;
      return [move(d.tenant, d.executionId, ['pending'], 'claimed', event.position)];
    }
    case 'ExecutionCompleted': {
      const d = (event as RecordedEvent<ExecutionCompleted['data']>).data;
      return [move(d.tenant, d.executionId, ['claimed'], 'ended', event.position)];
    }
    case 'ExecutionSettled': {
      const d = (event as RecordedEvent<ExecutionSettled['data']>).data;
      return [move(d.tenant, d.executionId, ['pending', 'claimed'], 'ended', event.position)];
    }
    default: {
      const _: never = type;
      return [];
    }
  }
}
