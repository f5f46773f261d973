import type { RecordedEvent } from '../../domain/ports/event-store.js';
import {
  type ExecutionClaimed,
  type ExecutionCompleted,
  type ExecutionDeadLettered,
  type ExecutionRedelivered,
  type ExecutionRetryScheduled,
  type ExecutionSettled,
  type RecoveryRequested,
  LIFECYCLE_EVENT_TYPES,
  requestedExecution,
} from '../../domain/execution/index.js';
import {
  OCCURRENCE_PAYLOAD_PATHS,
  type OccurrenceAdmitted,
  type OccurrenceBatched,
} from '../../domain/occurrence/occurrence-events.js';
import type { MissionRevised } from '../../domain/mission/mission.js';
import type { SqlQuery } from '../sql-client.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import { pendingExecutionsMigrations } from './pending-executions.migrations.js';

export const PENDING_EXECUTIONS_PROJECTION = 'pending-executions';

type Handled =
  | MissionRevised
  | OccurrenceAdmitted
  | OccurrenceBatched
  | ExecutionClaimed
  | ExecutionCompleted
  | ExecutionRetryScheduled
  | ExecutionRedelivered
  | ExecutionDeadLettered
  | ExecutionSettled
  | RecoveryRequested;
const HANDLES: readonly Handled['type'][] = [
  'MissionRevised',
  'OccurrenceAdmitted',
  'OccurrenceBatched',
  ...LIFECYCLE_EVENT_TYPES,
];

const removed = (executionId: string): SqlQuery => ({
  text: `DELETE FROM rm_pending_executions WHERE execution_id = $1`,
  touches: executionId,
  values: [executionId],
});

const FREED = `ON CONFLICT (tenant, scope) DO UPDATE SET freed_at = greatest(rm_pending_frees.freed_at, EXCLUDED.freed_at)`;

/**
 * AD-2: the Mission's state now. Resumed from a pause, the work it held gets a whole claim window from `at` (the
 * timers read `rm_pending_frees`), as when a slot frees. One statement: its parts see the state before it.
 */
const missionRevised = ({ tenant, missionId, state, at }: MissionRevised['data']): SqlQuery => ({
  text: `WITH before AS (SELECT state FROM rm_pending_missions WHERE tenant = $1 AND mission_id = $2),
         resumed AS (
           INSERT INTO rm_pending_frees (tenant, scope, freed_at)
           SELECT $1, 'mission:' || $2, $4::timestamptz FROM before WHERE before.state = 'paused' AND $3 = 'active'
           ${FREED})
         INSERT INTO rm_pending_missions (tenant, mission_id, state) VALUES ($1, $2, $3)
         ON CONFLICT (tenant, mission_id) DO UPDATE SET state = EXCLUDED.state`,
  values: [tenant, missionId, state, at],
});

/**
 * Before the row gives its Mission slot back: a Mission that was full frees a slot at `at`, so the delivery that
 * waited for it has a claim window from then (the timers read `rm_pending_frees`). `greatest`: replays agree.
 */
const slotFreed = (executionId: string, at: string): SqlQuery => ({
  text: `INSERT INTO rm_pending_frees (tenant, scope, freed_at)
         SELECT r.tenant, 'mission:' || r.mission_id, $2::timestamptz FROM rm_pending_executions r
         WHERE r.execution_id = $1 AND r.holds_slot AND (
           SELECT count(*) FROM (SELECT FROM rm_pending_executions s
             WHERE s.tenant = r.tenant AND s.mission_id = r.mission_id AND s.holds_slot LIMIT r.max_concurrent) held
           ) >= r.max_concurrent
         ${FREED}`,
  values: [executionId, at],
});

/** Before the row leaves: a resource lane with work behind it hands out its next execution from `at` (AD-5). */
const laneFreed = (executionId: string, at: string): SqlQuery => ({
  text: `INSERT INTO rm_pending_frees (tenant, scope, freed_at)
         SELECT r.tenant, 'lane:' || r.lane, $2::timestamptz FROM rm_pending_executions r
         WHERE r.execution_id = $1 AND r.lane LIKE 'resource:%' AND EXISTS (
           SELECT 1 FROM rm_pending_executions l
           WHERE l.tenant = r.tenant AND l.lane = r.lane AND l.position > r.position)
         ${FREED}`,
  values: [executionId, at],
});

/**
 * The row ends: its slot and its lane go to whoever waited for them. One statement: its parts read the rows as
 * they were before it (as the three did one after another: the frees before the delete) and write different
 * keys of rm_pending_frees ('mission:' and 'lane:' scopes).
 */
const ended = (executionId: string, at: string): SqlQuery[] => {
  const [slot, lane, row] = [slotFreed(executionId, at), laneFreed(executionId, at), removed(executionId)];
  return [{ text: `WITH slot AS (${slot.text}), lane AS (${lane.text}) ${row.text}`, values: [executionId, at] }];
};

/**
 * A row lives while the execution is not terminal (EX-2, EX-4): from admission (or an operator's recovery) to a
 * final completion, a dead letter or a noncommit settlement; a retry keeps its row (and its place in a resource
 * lane) but neither offers it nor counts a slot until it is redelivered. Events arrive in log order with the
 * checkpoint in the same transaction, so a replayed batch re-inserts, updates and deletes exactly as the first
 * time did; every statement sets what its event says instead of counting.
 */
export function evolvePendingExecutions(event: RecordedEvent): SqlQuery[] {
  switch (event.type as Handled['type']) {
    case 'MissionRevised':
      return [missionRevised((event as RecordedEvent<MissionRevised['data']>).data)];
    case 'OccurrenceAdmitted':
    case 'OccurrenceBatched': {
      // BA-1: only the first member's decision of a batch carries its execution's request.
      const { request, decidedAt } = (event as RecordedEvent<OccurrenceAdmitted['data']>).data;
      if (!request) return [];
      // The domain's own first delivery, so the claim window here is the one AdvanceDelivery decides on.
      const delivered = requestedExecution(request, decidedAt);
      if (delivered.status !== 'pending') return [];
      return [
        {
          text: `INSERT INTO rm_pending_executions
                   (execution_id, tenant, mission_id, trigger_id, lane, position, claimed, holds_slot, max_concurrent,
                    claim_by, claim_within)
                 VALUES ($1, $2, $3, $4, $5, $6, false, $7, $8, $9::timestamptz, $10)
                 ON CONFLICT (execution_id) DO NOTHING`,
          touches: request.executionId,
          values: [
            request.executionId,
            request.tenant,
            request.missionId,
            request.triggerId,
            request.lane,
            event.position,
            delivered.holdsSlot,
            request.limits.maxConcurrent,
            delivered.claimBy,
            delivered.policy.claimWithinSeconds,
          ],
        },
      ];
    }
    case 'ExecutionClaimed': {
      const { executionId } = (event as RecordedEvent<ExecutionClaimed['data']>).data;
      return [
        {
          text: `UPDATE rm_pending_executions SET claimed = true, holds_slot = true, claim_by = NULL
                 WHERE execution_id = $1`,
          touches: executionId,
          values: [executionId],
        },
      ];
    }
    case 'ExecutionCompleted': {
      // A retryable failure is followed in the same append by its retry or its dead letter, which decide the row.
      const { executionId, retryable, at } = (event as RecordedEvent<ExecutionCompleted['data']>).data;
      return retryable === true ? [] : ended(executionId, at);
    }
    case 'ExecutionRetryScheduled': {
      const { executionId, nextAttemptAt, at } = (event as RecordedEvent<ExecutionRetryScheduled['data']>).data;
      return [
        slotFreed(executionId, at),
        {
          text: `UPDATE rm_pending_executions
                 SET claimed = false, holds_slot = false, claim_by = NULL, next_attempt_at = $2::timestamptz
                 WHERE execution_id = $1`,
          touches: executionId,
          values: [executionId, nextAttemptAt],
        },
      ];
    }
    case 'ExecutionRedelivered': {
      // A retry gave its slot back when it was scheduled; an unclaimed delivery keeps whatever it held.
      const { executionId, claimBy } = (event as RecordedEvent<ExecutionRedelivered['data']>).data;
      return [
        {
          text: `UPDATE rm_pending_executions
                 SET claimed = false, claim_by = $2::timestamptz, next_attempt_at = NULL
                 WHERE execution_id = $1`,
          touches: executionId,
          values: [executionId, claimBy],
        },
      ];
    }
    case 'ExecutionDeadLettered':
    case 'ExecutionSettled': {
      const { executionId, at } = (event as RecordedEvent<ExecutionDeadLettered['data'] | ExecutionSettled['data']>)
        .data;
      return ended(executionId, at);
    }
    case 'RecoveryRequested': {
      // Queued again behind everything accepted before the recovery: its position is the recovery's own.
      const data = (event as RecordedEvent<RecoveryRequested['data']>).data;
      return [
        {
          text: `INSERT INTO rm_pending_executions
                   (execution_id, tenant, mission_id, trigger_id, lane, position, claimed, holds_slot, max_concurrent,
                    claim_by, claim_within, next_attempt_at)
                 VALUES ($1, $2, $3, $4, $5, $6, false, false, $7, $8::timestamptz, $9, NULL)
                 ON CONFLICT (execution_id) DO UPDATE SET
                   position = EXCLUDED.position, claimed = false, holds_slot = false,
                   max_concurrent = EXCLUDED.max_concurrent, claim_by = EXCLUDED.claim_by,
                   claim_within = EXCLUDED.claim_within, next_attempt_at = NULL`,
          touches: data.executionId,
          values: [
            data.executionId,
            data.tenant,
            data.missionId,
            data.triggerId,
            data.lane,
            event.position,
            data.maxConcurrent,
            data.claimBy,
            // A recovery opens a whole claim window: the one its request's policy declares.
            (Date.parse(data.claimBy) - Date.parse(data.at)) / 1000,
          ],
        },
      ];
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
  tables: ['rm_pending_executions', 'rm_pending_frees', 'rm_pending_missions'],
  // Every millisecond it trails an admission is a millisecond of admission → claim (EX-2).
  foldsAtOnce: true,
  evolve: evolvePendingExecutions,
});
