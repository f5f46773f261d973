import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';
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

interface MapRow {
  tenant: string;
  execution_id: string;
  trigger_id: string;
  status: Counted;
  position: number;
}

interface TriggerDelta {
  tenant: string;
  trigger_id: string;
  started: number;
  claimed: number;
  retrying: number;
  dead: number;
  pending: number;
  last_position: number;
}

const key = (tenant: string, id: string) => `${tenant}\u0000${id}`;

/**
 * A batch's lifecycle events folded in memory from the map rows they touch, by the rules of MOVE_SQL, then written
 * as one upsert and one counter update: one event at a time rewrote the Trigger's row once per event, each
 * version behind the last in the same transaction (a rebuild spent most of its time there). Same rows as `MOVE_SQL`
 * event by event, replays included (the batch test compares both).
 */
export async function foldExecutionCounts(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> {
  const moving = events.filter((event) => MOVES[event.type as LifecycleEvent['type']] !== undefined);
  if (moving.length === 0) return;
  const rows = await loadMapRows(tx, moving);
  const changed = new Set<string>();
  const deltas = new Map<string, TriggerDelta>();
  const deltaOf = (tenant: string, triggerId: string) => {
    const k = key(tenant, triggerId);
    let delta = deltas.get(k);
    if (!delta)
      deltas.set(
        k,
        (delta = {
          tenant,
          trigger_id: triggerId,
          started: 0,
          claimed: 0,
          retrying: 0,
          dead: 0,
          pending: 0,
          last_position: 0,
        }),
      );
    return delta;
  };
  const count = (delta: TriggerDelta, status: Counted, by: 1 | -1) => {
    if (status !== 'ended') delta[status] += by;
  };
  for (const event of moving) {
    const move = MOVES[event.type as LifecycleEvent['type']];
    const d = event.data as ExecutionCompleted['data'];
    const k = key(d.tenant, d.executionId);
    const row = rows.get(k);
    if (row ? !move.from.includes(row.status) || row.position >= event.position : !move.from.includes('absent'))
      continue;
    const delta = deltaOf(d.tenant, row?.trigger_id ?? d.triggerId);
    if (row) count(delta, row.status, -1);
    else delta.started += 1;
    count(delta, move.to, 1);
    delta.last_position = Math.max(delta.last_position, event.position);
    rows.set(k, {
      ...(row ?? { tenant: d.tenant, execution_id: d.executionId, trigger_id: d.triggerId }),
      status: move.to,
      position: event.position,
    });
    changed.add(k);
  }
  if (changed.size === 0) return;
  await tx.query(
    `INSERT INTO rm_trigger_health_executions (tenant, execution_id, trigger_id, status, position)
     SELECT tenant, execution_id, trigger_id, status, position
       FROM jsonb_to_recordset($1::jsonb) AS x(tenant text, execution_id text, trigger_id text, status text, position bigint)
     ON CONFLICT (tenant, execution_id) DO UPDATE SET status = EXCLUDED.status, position = EXCLUDED.position`,
    [JSON.stringify([...changed].map((k) => rows.get(k)))],
  );
  await tx.query(
    `UPDATE rm_trigger_health h SET
       executions_started = h.executions_started + d.started,
       ${COUNTERS.map(([status, column]) => `${column} = h.${column} + d.${status}`).join(',\n       ')},
       last_position = GREATEST(h.last_position, d.last_position)
     FROM jsonb_to_recordset($1::jsonb) AS d(tenant text, trigger_id text, started int, claimed int, retrying int,
                                             dead int, pending int, last_position bigint)
     WHERE h.tenant = d.tenant AND h.trigger_id = d.trigger_id`,
    [JSON.stringify([...deltas.values()])],
  );
}

/**
 * One primary-key probe per pair (LATERAL keeps it a probe): as two `= ANY` lists PostgreSQL 15 used only the
 * tenant as an index condition and filtered every execution of the tenant per batch (quadratic in a rebuild).
 */
async function loadMapRows(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<Map<string, MapRow>> {
  const ids = events.map((event) => event.data as { tenant: string; executionId: string });
  const { rows } = await tx.query<Omit<MapRow, 'position'> & { position: string }>(
    `SELECT e.tenant, e.execution_id, e.trigger_id, e.status, e.position
       FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) AS k(tenant, execution_id)) k
       CROSS JOIN LATERAL (
         SELECT * FROM rm_trigger_health_executions e WHERE e.tenant = k.tenant AND e.execution_id = k.execution_id) e`,
    [ids.map((id) => id.tenant), ids.map((id) => id.executionId)],
  );
  return new Map(rows.map((row) => [key(row.tenant, row.execution_id), { ...row, position: Number(row.position) }]));
}
