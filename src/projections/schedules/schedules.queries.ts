import type { SqlExecutor } from '../sql-client.js';
import type { ScheduleTrigger } from '../../domain/schedule/materialization.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import type {
  InstantRange,
  ScheduleSnapshot,
  ScheduleState,
  SkipCause,
} from '../../domain/schedule/schedule-events.js';
import { dedupeIdentityHash, scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { isoSql } from '../occurrences/cursor.js';
import type { IndexedState, ScheduleSide } from './schedule-index.js';
import { SIDE_COLUMNS, sideOf } from './schedules.state.js';

/** One due-index row as the materializer reads it. */
export interface ScheduleRow {
  tenant: string;
  triggerId: string;
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
  /** Revision of the last schedule event folded: the expected revision of the next append (-1: none). */
  scheduleRevision: number;
  state: ScheduleSnapshot | null;
  /** The whole schedule side: what a writer folds its decision into and compares-and-sets. */
  side: ScheduleSide;
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
  skipped: ScheduleSide['skipped'];
  last_position: string | number;
  due_at: string | null;
}

const COLUMNS = `tenant, trigger_id, trigger_revision, mission_id, enabled, deleted, definition, tzdata_pinned, epoch, activation,
  ${isoSql('activated_at')} AS activated_at, ${SIDE_COLUMNS}, ${isoSql('due_at')} AS due_at`;

function toRow(r: RawRow): ScheduleRow {
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
    scheduleRevision: r.schedule_revision,
    state: r.state,
    side: sideOf(r),
    dueAt: r.due_at,
  };
}

export interface ScheduleKey {
  tenant: string;
  triggerId: string;
}

/**
 * Keys of the rows due at `now`, oldest first: one index scan per pass. Scanning the due index once
 * per batch instead would walk, each time, past the entries this pass already moved on (their old
 * versions stay in the index until vacuum), which grows quadratically with the number of Triggers.
 */
export async function dueKeys(sql: SqlExecutor, now: string, limit: number): Promise<ScheduleKey[]> {
  const { rows } = await sql.query<{ tenant: string; trigger_id: string }>({
    name: 'reveille_due_schedule_keys',
    text: 'SELECT tenant, trigger_id FROM rm_schedules WHERE due_at <= $1::timestamptz ORDER BY due_at, tenant, trigger_id LIMIT $2',
    values: [now, limit],
  });
  return rows.map((r) => ({ tenant: r.tenant, triggerId: r.trigger_id }));
}

/**
 * The rows of `keys` still due at `now`. `skip_locked` claims them for the caller's transaction so
 * concurrent schedulers take disjoint work; `none` reads without locks (schedulers then race and
 * the streams decide). Correctness never depends on the lock. Whatever clock the caller read `now`
 * from, a row is never claimed before the database's own clock reaches its due time (SC-4, SC-6).
 */
export async function claimDue(
  tx: SqlExecutor,
  keys: readonly ScheduleKey[],
  now: string,
  claim: 'skip_locked' | 'none',
): Promise<ScheduleRow[]> {
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

/** What pins a row's decision: a staged decision holds only while these are unchanged. */
export interface ClaimedTokens extends ScheduleKey {
  triggerRevision: number;
  scheduleRevision: number;
  statePosition: number;
}

/** `claimDue`, returning only the rows' tokens (the pass has their decisions staged). */
export async function claimDueTokens(
  tx: SqlExecutor,
  keys: readonly ScheduleKey[],
  now: string,
  claim: 'skip_locked' | 'none',
): Promise<ClaimedTokens[]> {
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

/** The rows that will be due at exactly `instant` (not yet claimed: the pass at the instant claims them). */
export async function rowsDueAt(sql: SqlExecutor, instant: string, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await sql.query<RawRow>({
    name: 'reveille_schedules_due_at',
    text: `SELECT ${COLUMNS} FROM rm_schedules WHERE due_at = $1::timestamptz ORDER BY tenant, trigger_id LIMIT $2`,
    values: [instant, limit],
  });
  return rows.map(toRow);
}

export async function scheduleRow(sql: SqlExecutor, tenant: string, triggerId: string): Promise<ScheduleRow | null> {
  const { rows } = await sql.query<RawRow>(
    `SELECT ${COLUMNS} FROM rm_schedules WHERE tenant = $1 AND trigger_id = $2 AND type = 'schedule'`,
    [tenant, triggerId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** The earliest due time of any schedule (null: nothing scheduled); the loop sleeps until then. */
export async function earliestDue(sql: SqlExecutor): Promise<string | null> {
  const { rows } = await sql.query<{ due: string | null }>(
    `SELECT ${isoSql('min(due_at)')} AS due FROM rm_schedules WHERE due_at IS NOT NULL`,
  );
  return rows[0]?.due ?? null;
}

/** The earliest due time strictly after `after` (null: none): the next instant worth staging. */
export async function nextDueAfter(sql: SqlExecutor, after: string): Promise<string | null> {
  const { rows } = await sql.query<{ due: string | null }>({
    name: 'reveille_next_schedule_due_after',
    text: `SELECT ${isoSql('min(due_at)')} AS due FROM rm_schedules WHERE due_at > $1::timestamptz`,
    values: [after],
  });
  return rows[0]?.due ?? null;
}

/**
 * A due row the decider had nothing to do for (its stored next instant no longer is one, e.g. the tz
 * data changed): point the index at the recomputed instant so the loop does not spin on it.
 */
export async function repointDue(tx: SqlExecutor, row: ScheduleRow, nextDueAt: string | null): Promise<void> {
  await tx.query(
    'UPDATE rm_schedules SET state_next_due_at = $4::timestamptz WHERE tenant = $1 AND trigger_id = $2 AND schedule_revision = $3 AND state_position = $5',
    [row.tenant, row.triggerId, row.scheduleRevision, nextDueAt, row.side.statePosition],
  );
}

/**
 * Whether the first instant after the row's boundary already has its Occurrence: then the row is
 * behind its streams (a rebuild is replaying them) and must not decide skips from it. Reads the
 * events table in the caller's transaction (the SQL stores keep events beside the index).
 */
export async function unrecordedFire(tx: SqlExecutor, row: ScheduleRow): Promise<boolean> {
  const state = row.state;
  if (state === null || state.epoch !== row.epoch) return false;
  const next = firstInstantAfter(row.schedule, state.boundary);
  if (next === null) return false;
  const stream = occurrenceStream(dedupeIdentityHash(scheduleIdentity(row.tenant, row, state.epoch, next)));
  return (await tx.query('SELECT 1 FROM events WHERE stream_id = $1 LIMIT 1', [stream])).rows.length > 0;
}

export function triggerFacts(row: ScheduleRow): ScheduleTrigger {
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
  return { tenant, triggerId, revision, epoch, activation, activatedAt, enabled, deleted, schedule };
}

export function stateOf(row: ScheduleRow): ScheduleState {
  const state = row.side.state;
  if (state === null) return { status: 'absent' };
  const { epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt } = state;
  return { status: 'materialized', epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt };
}

/** api.md operator detail `schedule` block, and what the health row takes from it. */
export interface ScheduleView {
  engine: string | null;
  tzdataVersion: string | null;
  boundary: string | null;
  skipped: Array<InstantRange & { cause: SkipCause }>;
  held: InstantRange[];
  nextFireAt: string | null;
}

interface ViewRow {
  trigger_id: string;
  definition: { schedule: NormalizedScheduleDefinition } | null;
  tzdata_pinned: string | null;
  epoch: number | null;
  state: ScheduleSnapshot | null;
  pending_boundary: string | null;
  skipped: Array<InstantRange & { cause: SkipCause }>;
  due_at: string | null;
}

/** Schedule views of the given Triggers of a tenant (missing: not a schedule, or not folded yet). */
export async function scheduleViews(
  sql: SqlExecutor,
  tenant: string,
  triggerIds: readonly string[],
): Promise<Map<string, ScheduleView>> {
  if (triggerIds.length === 0) return new Map();
  const { rows } = await sql.query<ViewRow>(
    `SELECT trigger_id, definition, tzdata_pinned, epoch, state, skipped, ${isoSql('due_at')} AS due_at,
            CASE WHEN state_activation IS DISTINCT FROM activation
                 THEN ${isoSql(`GREATEST(activated_at, (state->>'boundary')::timestamptz)`)} END AS pending_boundary
       FROM rm_schedules WHERE tenant = $1 AND trigger_id = ANY($2::text[]) AND type = 'schedule'`,
    [tenant, [...triggerIds]],
  );
  return new Map(
    rows.map((r) => {
      const current = r.state !== null && r.state.epoch === r.epoch;
      const view: ScheduleView = {
        engine: r.definition?.schedule.engine ?? null,
        tzdataVersion: r.tzdata_pinned,
        boundary: r.pending_boundary ?? r.state?.boundary ?? null,
        skipped: r.skipped,
        held: current ? r.state!.held : [],
        // a pending activation is due at once (to be recorded); its first fire follows the activation boundary
        nextFireAt:
          r.pending_boundary !== null && r.definition
            ? firstInstantAfter(r.definition.schedule, r.pending_boundary)
            : r.due_at,
      };
      return [r.trigger_id, view];
    }),
  );
}
