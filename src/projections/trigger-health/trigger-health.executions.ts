import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlQuery } from '../sql-client.js';
import {
  LIFECYCLE_EVENT_TYPES,
  type ExecutionCompleted,
  type ExecutionEvent,
  type LifecycleEvent,
} from '../../domain/execution/index.js';

export const EXECUTION_EVENT_TYPES: readonly LifecycleEvent['type'][] = LIFECYCLE_EVENT_TYPES;

export const isExecutionEvent = (event: RecordedEvent): boolean =>
  (EXECUTION_EVENT_TYPES as readonly string[]).includes(event.type);

/** An execution's place in the OP-1 counts; `absent` is an admitted execution no lifecycle event touched yet. */
type Counted = 'pending' | 'claimed' | 'retrying' | 'dead' | 'ended';
type From = Counted | 'absent';

interface Move {
  to: Counted;
  /** The states the domain allows the event from; from any other (a stale or replayed event) it moves nothing. */
  from: readonly From[];
}

/** EX-2..EX-4 as the counts see them: completed, failed and noncommitted are all `ended`. */
const MOVES: Record<LifecycleEvent['type'], Move> = {
  ExecutionClaimed: { to: 'claimed', from: ['absent', 'pending'] },
  ExecutionCompleted: { to: 'ended', from: ['claimed'] },
  ExecutionRetryScheduled: { to: 'retrying', from: ['ended', 'claimed'] },
  ExecutionRedelivered: { to: 'pending', from: ['absent', 'pending', 'retrying'] },
  ExecutionDeadLettered: { to: 'dead', from: ['absent', 'pending', 'ended', 'retrying'] },
  ExecutionSettled: { to: 'ended', from: ['absent', 'pending', 'claimed'] },
  RecoveryRequested: { to: 'pending', from: ['dead', 'ended'] },
};

/** One counter per counted state; `pending` counts only executions pending again after a lifecycle event. */
const COUNTERS: ReadonlyArray<[Counted, string]> = [
  ['claimed', 'executions_claimed'],
  ['retrying', 'executions_retrying'],
  ['dead', 'executions_dead'],
  ['pending', 'executions_repending'],
];

/*
 * Every admission requests an execution, so `pending` is `admitted − started + repending`, where `started`
 * counts the executions with a map row. A map row keeps the position of the event that set its status; an
 * execution's events are appended one after another, so an event at or below it is a replay and moves nothing.
 * $1 tenant, $2 execution, $3 trigger, $4 position, $5 the new status, $6 the allowed previous statuses, comma-separated.
 */
const MOVE_SQL = `
  WITH was AS (SELECT status FROM rm_trigger_health_executions WHERE tenant = $1 AND execution_id = $2),
  moved AS (
    INSERT INTO rm_trigger_health_executions AS e (tenant, execution_id, trigger_id, status, position)
    SELECT $1, $2, $3, $5::text, $4::bigint
     WHERE EXISTS (SELECT 1 FROM was) OR 'absent' = ANY(string_to_array($6::text, ','))
    ON CONFLICT (tenant, execution_id) DO UPDATE SET status = EXCLUDED.status, position = EXCLUDED.position
     WHERE e.status = ANY(string_to_array($6::text, ',')) AND e.position < EXCLUDED.position
    RETURNING tenant, trigger_id)
  UPDATE rm_trigger_health h SET
    executions_started = h.executions_started + (NOT EXISTS (SELECT 1 FROM was))::int,
    ${COUNTERS.map(
      ([status, column]) =>
        `${column} = h.${column} + ($5::text = '${status}')::int - (EXISTS (SELECT 1 FROM was WHERE status = '${status}'))::int`,
    ).join(',\n    ')},
    last_position = GREATEST(h.last_position, $4::bigint)
  FROM moved m WHERE h.tenant = m.tenant AND h.trigger_id = m.trigger_id`;

/** OP-1 `executions` of the Trigger health row: pending, claimed, retrying and dead, moved by every lifecycle event. */
export function evolveExecutionCounts(event: RecordedEvent): SqlQuery[] {
  const move = MOVES[event.type as LifecycleEvent['type']];
  if (!move) return [];
  const d = event.data as ExecutionCompleted['data'];
  return [
    { text: MOVE_SQL, values: [d.tenant, d.executionId, d.triggerId, event.position, move.to, move.from.join(',')] },
  ];
}
