import type { SqlExecutor } from '../sql-client.js';
import type { ScheduleTrigger } from '../../domain/schedule/materialization.js';
import type { ScheduleBinding } from '../../domain/schedule/schedule-decision.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import type { ScheduleState } from '../../domain/schedule/schedule-events.js';
import { isoSql } from '../occurrences/cursor.js';
import type { DueIndexState, IndexedState, TriggerKey } from './due-index.js';
import { INDEXED_STATE_COLUMNS, indexedStateOf } from './due-index.writes.js';

export interface DueRow extends TriggerKey {
  triggerRevision: number;
  missionId: string;
  enabled: boolean;
  deleted: boolean;
  schedule: NormalizedScheduleDefinition;
  classification: string;
  tzdataPinned: string | null;
  epoch: number;
  activation: number;
  activatedAt: string;
  /** Its `scheduleRevision` is the expected revision of the next append (-1: none). */
  indexed: DueIndexState;
  dueAt: string | null;
}

interface RawRow {
  tenant: string;
  trigger_id: string;
  trigger_revision: number;
  mission_id: string;
  enabled: boolean;
  deleted: boolean;
  definition: { schedule: NormalizedScheduleDefinition; classification: string };
  tzdata_pinned: string | null;
  epoch: number;
  activation: number;
  activated_at: string;
  schedule_revision: number;
  state: IndexedState | null;
  state_position: string | number;
  routine_instants: number;
  skipped: DueIndexState['skipped'];
  last_position: string | number;
  due_at: string | null;
}

const COLUMNS = `tenant, trigger_id, trigger_revision, mission_id, enabled, deleted, definition, tzdata_pinned, epoch, activation,
  ${isoSql('activated_at')} AS activated_at, ${INDEXED_STATE_COLUMNS}, ${isoSql('due_at')} AS due_at`;

function toRow(r: RawRow): DueRow {
  return {
    tenant: r.tenant,
    triggerId: r.trigger_id,
    triggerRevision: r.trigger_revision,
    missionId: r.mission_id,
    enabled: r.enabled,
    deleted: r.deleted,
    schedule: r.definition.schedule,
    classification: r.definition.classification,
    tzdataPinned: r.tzdata_pinned,
    epoch: r.epoch,
    activation: r.activation,
    activatedAt: r.activated_at,
    indexed: indexedStateOf(r),
    dueAt: r.due_at,
  };
}

/**
 * One index scan per pass: a scan per batch would walk past the entries this pass already moved (old versions
 * stay in the index until vacuum), quadratic in the number of Triggers.
 */
export async function dueKeys(sql: SqlExecutor, now: string, limit: number): Promise<TriggerKey[]> {
  const { rows } = await sql.query<{ tenant: string; trigger_id: string }>({
    name: 'reveille_due_schedule_keys',
    text: 'SELECT tenant, trigger_id FROM rm_schedules WHERE due_at <= $1::timestamptz ORDER BY due_at, tenant, trigger_id LIMIT $2',
    values: [now, limit],
  });
  return rows.map((r) => ({ tenant: r.tenant, triggerId: r.trigger_id }));
}

/**
 * Correctness never depends on the lock: with `none` schedulers race and the streams decide. A row is never
 * claimed before the database's own clock reaches its due time, whatever clock `now` came from (SC-4, SC-6).
 */
export async function claimDue(
  tx: SqlExecutor,
  keys: readonly TriggerKey[],
  now: string,
  claim: 'skip_locked' | 'none',
): Promise<DueRow[]> {
  const lock = claim === 'skip_locked' ? 'FOR UPDATE SKIP LOCKED' : '';
  const { rows } = await tx.query<RawRow>({
    name: `reveille_claim_due_schedules_${claim}`,
    text: `SELECT ${COLUMNS} FROM rm_schedules
            WHERE (tenant, trigger_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND ${DUE_BY}
            ORDER BY tenant, trigger_id ${lock}`,
    values: [keys.map((k) => k.tenant), keys.map((k) => k.triggerId), now],
  });
  return rows.map(toRow);
}

/** Due by the caller's `now` ($3) and by the database clock. */
const DUE_BY = 'due_at <= $3::timestamptz AND due_at <= statement_timestamp()';

/** Any change to the Trigger or to what its streams recorded moves one of these. */
export interface DueRowTokens extends TriggerKey {
  triggerRevision: number;
  scheduleRevision: number;
  statePosition: number;
}

export async function claimDueTokens(
  tx: SqlExecutor,
  keys: readonly TriggerKey[],
  now: string,
  claim: 'skip_locked' | 'none',
): Promise<DueRowTokens[]> {
  const lock = claim === 'skip_locked' ? 'FOR UPDATE SKIP LOCKED' : '';
  const { rows } = await tx.query<{
    tenant: string;
    trigger_id: string;
    trigger_revision: number;
    schedule_revision: number;
    state_position: string | number;
  }>({
    name: `reveille_claim_due_schedule_tokens_${claim}`,
    text: `SELECT tenant, trigger_id, trigger_revision, schedule_revision, state_position FROM rm_schedules
            WHERE (tenant, trigger_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND ${DUE_BY}
            ORDER BY tenant, trigger_id ${lock}`,
    values: [keys.map((k) => k.tenant), keys.map((k) => k.triggerId), now],
  });
  return rows.map((r) => ({
    tenant: r.tenant,
    triggerId: r.trigger_id,
    triggerRevision: r.trigger_revision,
    scheduleRevision: r.schedule_revision,
    statePosition: Number(r.state_position),
  }));
}

/** Not claimed: the pass at the instant claims them. */
export async function rowsDueAt(sql: SqlExecutor, instant: string, limit: number): Promise<DueRow[]> {
  const { rows } = await sql.query<RawRow>({
    name: 'reveille_schedules_due_at',
    text: `SELECT ${COLUMNS} FROM rm_schedules WHERE due_at = $1::timestamptz ORDER BY tenant, trigger_id LIMIT $2`,
    values: [instant, limit],
  });
  return rows.map(toRow);
}

export async function dueRow(sql: SqlExecutor, tenant: string, triggerId: string): Promise<DueRow | null> {
  const { rows } = await sql.query<RawRow>(
    `SELECT ${COLUMNS} FROM rm_schedules WHERE tenant = $1 AND trigger_id = $2 AND type = 'schedule'`,
    [tenant, triggerId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

export async function earliestDue(sql: SqlExecutor): Promise<string | null> {
  const { rows } = await sql.query<{ due: string | null }>(
    `SELECT ${isoSql('min(due_at)')} AS due FROM rm_schedules WHERE due_at IS NOT NULL`,
  );
  return rows[0]?.due ?? null;
}

export async function nextDueAfter(sql: SqlExecutor, after: string): Promise<string | null> {
  const { rows } = await sql.query<{ due: string | null }>({
    name: 'reveille_next_schedule_due_after',
    text: `SELECT ${isoSql('min(due_at)')} AS due FROM rm_schedules WHERE due_at > $1::timestamptz`,
    values: [after],
  });
  return rows[0]?.due ?? null;
}

/** The stored next instant no longer is one (say the tz data changed): repoint, so the loop does not spin on it. */
export async function repointDue(tx: SqlExecutor, row: DueRow, nextDueAt: string | null): Promise<void> {
  await tx.query(
    'UPDATE rm_schedules SET state_next_due_at = $4::timestamptz WHERE tenant = $1 AND trigger_id = $2 AND schedule_revision = $3 AND state_position = $5',
    [row.tenant, row.triggerId, row.indexed.scheduleRevision, nextDueAt, row.indexed.statePosition],
  );
}

export function triggerFacts(row: DueRow): ScheduleTrigger {
  const {
    tenant,
    triggerId,
    triggerRevision: revision,
    epoch,
    activation,
    activatedAt,
    enabled,
    deleted,
    schedule,
  } = row;
  // the row has the current revision only: a decision that needs the ended activations reads the Trigger's stream
  return { tenant, triggerId, revision, epoch, activation, activatedAt, enabled, deleted, schedule, ended: null };
}

export function stateOf(row: DueRow): ScheduleState {
  const state = row.indexed.state;
  if (state === null) return { status: 'absent' };
  const { epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt } = state;
  return { status: 'materialized', epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt };
}

export function bindingOf(row: DueRow): ScheduleBinding {
  const { tenant, triggerId, triggerRevision, missionId, classification, epoch } = row;
  return { tenant, triggerId, triggerRevision, missionId, classification, epoch };
}
