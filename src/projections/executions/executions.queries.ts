import type { ExecutionError, ExecutionStatus } from '../../domain/execution/index.js';
import { cursorNumber, decodeCursor, encodeCursor, isoSql } from '../occurrences/cursor.js';
import type { Page } from '../occurrences/occurrences.queries.js';
import type { SqlExecutor } from '../sql-client.js';

export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'pending',
  'claimed',
  'retrying',
  'completed',
  'failed',
  'noncommitted',
  'dead_lettered',
];

/** A row of `GET /v1/executions` (never the payload). */
export interface ExecutionRowView {
  executionId: string;
  status: ExecutionStatus;
  generation: number;
  attempt: number;
  occurrenceId: string;
  triggerId: string;
  missionId: string;
  lane: string;
  claim: { consumerId: string; fence: number; at: string } | null;
  nextAttemptAt: string | null;
  lastError: ExecutionError | null;
  completion: { fence: number; outcome: string; retryable: boolean; at: string } | null;
  settlement: { settlementId: string; decision: string; fence: number | null; at: string } | null;
  deadLetter: { reason: string; attempts: number; at: string } | null;
  maxRuntimeSeconds: number | null;
  /** EX-5: claimed longer than `maxRuntimeSeconds` by the database clock; shown, never taken back. */
  overdue: boolean;
  admittedAt: string;
  /** The store position of its admission: the list's order. */
  position: number;
}

/** A row of the dead-letter queue (EX-4), as api.md lists it. */
export interface DeadLetterView {
  executionId: string;
  occurrenceId: string;
  triggerId: string;
  missionId: string;
  reason: 'unclaimed' | 'failed';
  attempts: number;
  lastError: ExecutionError | null;
  deadLetteredAt: string;
  generation: number;
  /** EX-4: the one way out of the queue (needs `operator:recover`, a reason and an Idempotency-Key). */
  recover: { method: 'POST'; href: string };
}

export interface ExecutionFilter {
  status?: ExecutionStatus;
  missionId?: string;
  triggerId?: string;
  limit: number;
  cursor?: string;
}

interface Row {
  execution_id: string;
  status: ExecutionStatus;
  generation: number;
  attempt: number;
  occurrence_id: string;
  trigger_id: string;
  mission_id: string;
  lane: string;
  consumer_id: string | null;
  claimed_at: string | null;
  fence: number | null;
  next_attempt_at: string | null;
  last_error: ExecutionError | null;
  completion: ExecutionRowView['completion'];
  settlement: ExecutionRowView['settlement'];
  dead_reason: 'unclaimed' | 'failed' | null;
  dead_attempts: number | null;
  dead_lettered_at: string | null;
  max_runtime_seconds: number | null;
  overdue: boolean;
  admitted_at: string;
  admitted_position: string | number;
}

/** The database clock decides overdue (EX-5), as it decides every timer. */
const OVERDUE_SQL = `(status = 'claimed' AND max_runtime_seconds IS NOT NULL
  AND clock_timestamp() > claimed_at + max_runtime_seconds * interval '1 second')`;

const SELECT = `SELECT execution_id, status, generation, attempt, occurrence_id, trigger_id, mission_id, lane, consumer_id,
  ${isoSql('claimed_at')} AS claimed_at, fence, ${isoSql('next_attempt_at')} AS next_attempt_at, last_error, completion,
  settlement, dead_reason, dead_attempts, ${isoSql('dead_lettered_at')} AS dead_lettered_at, max_runtime_seconds,
  ${OVERDUE_SQL} AS overdue, ${isoSql('admitted_at')} AS admitted_at, admitted_position
  FROM rm_executions`;

function toView(row: Row): ExecutionRowView {
  return {
    executionId: row.execution_id,
    status: row.status,
    generation: row.generation,
    attempt: row.attempt,
    occurrenceId: row.occurrence_id,
    triggerId: row.trigger_id,
    missionId: row.mission_id,
    lane: row.lane,
    claim:
      row.status === 'claimed' && row.consumer_id !== null && row.claimed_at !== null && row.fence !== null
        ? { consumerId: row.consumer_id, fence: row.fence, at: row.claimed_at }
        : null,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    completion: row.completion,
    settlement: row.settlement,
    deadLetter:
      row.dead_reason !== null && row.dead_lettered_at !== null
        ? { reason: row.dead_reason, attempts: Number(row.dead_attempts), at: row.dead_lettered_at }
        : null,
    maxRuntimeSeconds: row.max_runtime_seconds,
    overdue: row.overdue === true,
    admittedAt: row.admitted_at,
    position: Number(row.admitted_position),
  };
}

/** Newest admission first; the cursor is the last row's admission position. Throws InvalidCursor on a foreign one. */
async function page(
  sql: SqlExecutor,
  tenant: string,
  list: string,
  filter: ExecutionFilter,
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const where = ['tenant = $1'];
  const values: unknown[] = [tenant];
  const add = (condition: (n: number) => string, value: unknown) => {
    values.push(value);
    where.push(condition(values.length));
  };
  if (filter.status !== undefined) add((n) => `status = $${n}`, filter.status);
  if (filter.missionId !== undefined) add((n) => `mission_id = $${n}`, filter.missionId);
  if (filter.triggerId !== undefined) add((n) => `trigger_id = $${n}`, filter.triggerId);
  if (filter.cursor !== undefined) {
    const [position] = decodeCursor(list, filter.cursor, 1) as [string];
    add((n) => `admitted_position < $${n}::bigint`, cursorNumber(position, 'bigint'));
  }
  values.push(filter.limit + 1);
  const { rows } = await sql.query<Row>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY admitted_position DESC LIMIT $${values.length}`,
    values,
  );
  const served = rows.slice(0, filter.limit);
  const last = served[served.length - 1];
  const nextCursor = rows.length > filter.limit && last ? encodeCursor(list, [String(last.admitted_position)]) : null;
  return { rows: served, nextCursor };
}

export async function listExecutions(
  sql: SqlExecutor,
  tenant: string,
  filter: ExecutionFilter,
): Promise<Page<ExecutionRowView>> {
  const { rows, nextCursor } = await page(sql, tenant, 'executions', filter);
  return { items: rows.map(toView), nextCursor };
}

/** EX-4: what only an operator's recovery delivers again. */
export async function listDeadLetters(
  sql: SqlExecutor,
  tenant: string,
  filter: Omit<ExecutionFilter, 'status'>,
): Promise<Page<DeadLetterView>> {
  const { rows, nextCursor } = await page(sql, tenant, 'dead-letters', { ...filter, status: 'dead_lettered' });
  const items = rows.map((row) => ({
    executionId: row.execution_id,
    occurrenceId: row.occurrence_id,
    triggerId: row.trigger_id,
    missionId: row.mission_id,
    reason: row.dead_reason ?? 'failed',
    attempts: Number(row.dead_attempts ?? 0),
    lastError: row.last_error,
    deadLetteredAt: row.dead_lettered_at ?? row.admitted_at,
    generation: row.generation,
    recover: {
      method: 'POST' as const,
      href: `/v1/operator/executions/${encodeURIComponent(row.execution_id)}/recover`,
    },
  }));
  return { items, nextCursor };
}

/** SEC-3: the executions `consumerId` holds claimed now, newest claim first. */
export async function claimedBy(
  sql: SqlExecutor,
  tenant: string,
  consumerId: string,
  limit: number,
): Promise<Array<{ executionId: string; missionId: string }>> {
  const { rows } = await sql.query<{ execution_id: string; mission_id: string }>(
    `SELECT execution_id, mission_id FROM rm_executions
      WHERE tenant = $1 AND status = 'claimed' AND consumer_id = $2 ORDER BY claimed_at DESC LIMIT $3`,
    [tenant, consumerId, limit],
  );
  return rows.map((r) => ({ executionId: r.execution_id, missionId: r.mission_id }));
}
