import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';
import {
  OCCURRENCE_PAYLOAD_PATHS,
  type OccurrenceAdmitted,
  type OccurrenceBatched,
  type OccurrenceBlocked,
  type OccurrenceCoalesced,
  type OccurrenceObserved,
  type OccurrenceSubscribed,
  type OccurrenceSuppressed,
} from '../../domain/occurrence/occurrence-events.js';
import type { TriggerDeleted, TriggerRevised } from '../../domain/trigger/trigger.js';
import type { MissionRevised } from '../../domain/mission/mission.js';
import { msSql } from '../occurrences/cursor.js';
import type { Projection } from '../runner/projection.js';
import { OccurrenceLedger } from './occurrence-ledger.js';
import { foldOccurrenceRun } from './trigger-health.batch.js';
import {
  EXECUTION_EVENT_TYPES,
  evolveExecutionCounts,
  foldExecutionCounts,
  isExecutionEvent,
} from './trigger-health.executions.js';
import { triggerHealthMigrations } from './trigger-health.migrations.js';

export const TRIGGER_HEALTH_PROJECTION = 'trigger-health';

type Handled =
  | TriggerRevised
  | TriggerDeleted
  | MissionRevised
  | OccurrenceObserved
  | OccurrenceAdmitted
  | OccurrenceBlocked
  | OccurrenceSuppressed
  | OccurrenceBatched
  | OccurrenceCoalesced
  | OccurrenceSubscribed;
const HANDLES: readonly string[] = [
  'TriggerRevised',
  'TriggerDeleted',
  'MissionRevised',
  'OccurrenceObserved',
  'OccurrenceAdmitted',
  'OccurrenceBlocked',
  'OccurrenceSuppressed',
  'OccurrenceBatched',
  'OccurrenceCoalesced',
  'OccurrenceSubscribed',
  ...EXECUTION_EVENT_TYPES,
];

const BLOCKED_TOTAL = `(SELECT coalesce(sum(value::bigint), 0) FROM jsonb_each_text(blocked))`;

/**
 * OP-4: a revision that changes the Trigger's type files what it counted so far under the old kind, before the row
 * takes the new one; the same revision guard as the row's makes a replay file nothing twice.
 */
function kindChange(tenant: string, triggerId: string, revision: number, type: string): SqlQuery[] {
  const changing = `tenant = $1 AND trigger_id = $2 AND revision < $3 AND type IS NOT NULL AND type <> $4`;
  const values = [tenant, triggerId, revision, type];
  return [
    {
      text: `INSERT INTO rm_trigger_health_kind_moves AS m (kind, observed, admitted, blocked)
             SELECT type, observed - observed_moved, admitted - admitted_moved, ${BLOCKED_TOTAL} - blocked_moved
               FROM rm_trigger_health WHERE ${changing}
             ON CONFLICT (kind) DO UPDATE SET observed = m.observed + EXCLUDED.observed,
               admitted = m.admitted + EXCLUDED.admitted, blocked = m.blocked + EXCLUDED.blocked`,
      values,
    },
    {
      text: `UPDATE rm_trigger_health SET observed_moved = observed, admitted_moved = admitted,
               blocked_moved = ${BLOCKED_TOTAL} WHERE ${changing}`,
      values,
    },
  ];
}

/** Positions are not monotonic in log order, hence the revision guard rather than `last_position < $n`. */
function revised(event: RecordedEvent<TriggerRevised['data']>): SqlQuery[] {
  const d = event.data;
  const schedule =
    d.definition.type === 'schedule'
      ? JSON.stringify({ engine: d.definition.schedule?.engine ?? null, tzdataVersion: d.pins?.tzdataVersion ?? null })
      : null;
  return [
    ...kindChange(d.tenant, d.triggerId, d.revision, d.definition.type),
    {
      text: `INSERT INTO rm_trigger_health AS h (tenant, trigger_id, revision, type, mission_id, enabled, deleted, schedule, last_position)
             VALUES ($1, $2, $3, $4, $5, $6, false, $7::jsonb, $8)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET revision = EXCLUDED.revision, type = EXCLUDED.type, mission_id = EXCLUDED.mission_id,
               enabled = EXCLUDED.enabled, deleted = false, schedule = EXCLUDED.schedule, last_position = EXCLUDED.last_position
             WHERE h.revision < EXCLUDED.revision`,
      values: [
        d.tenant,
        d.triggerId,
        d.revision,
        d.definition.type,
        d.definition.missionId,
        d.definition.enabled,
        schedule,
        event.position,
      ],
    },
  ];
}

function deleted(event: RecordedEvent<TriggerDeleted['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: `INSERT INTO rm_trigger_health AS h (tenant, trigger_id, revision, deleted, last_position) VALUES ($1, $2, $3, true, $4)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET revision = EXCLUDED.revision, deleted = true, last_position = EXCLUDED.last_position
             WHERE h.revision < EXCLUDED.revision`,
      values: [d.tenant, d.triggerId, d.revision, event.position],
    },
  ];
}

/**
 * Counted only while the explorer has no row for it yet (it folds just after, in the same transaction). The
 * "last occurrence" is the newest by (observedAt, occurrenceId), a comparison a replay cannot change.
 */
function observed(event: RecordedEvent<OccurrenceObserved['data']>): SqlQuery[] {
  const o = event.data;
  return [
    {
      text: `INSERT INTO rm_trigger_health AS h (tenant, trigger_id, observed, last_position)
             SELECT $1, $3, 1, $4::bigint WHERE NOT EXISTS (SELECT 1 FROM rm_occurrences WHERE tenant = $1 AND occurrence_id = $2)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET observed = h.observed + 1, last_position = EXCLUDED.last_position`,
      values: [o.tenant, o.occurrenceId, o.triggerId, event.position],
    },
    {
      text: `UPDATE rm_trigger_health SET last_occurrence_id = $3, last_status = 'observed', last_reason = NULL, last_observed_at = ${msSql('$4')}
              WHERE tenant = $1 AND trigger_id = $2
                AND (last_observed_at IS NULL OR (last_observed_at, last_occurrence_id) < (${msSql('$4')}, $3))`,
      values: [o.tenant, o.triggerId, o.occurrenceId, o.observedAt],
    },
  ];
}

/** The explorer row gives the Trigger, and counts the decision once (AD-1): only while that row is still observed. */
const decide = (
  status: 'admitted' | 'blocked' | 'suppressed' | 'batched' | 'coalesced' | 'subscribed',
  set: string,
) => `
  WITH decided AS (
    SELECT tenant, trigger_id, occurrence_id FROM rm_occurrences
     WHERE occurrence_id = $1 AND tenant = COALESCE($2::text, tenant) AND status = 'observed')
  UPDATE rm_trigger_health h SET ${set},
    last_status = CASE WHEN h.last_occurrence_id = d.occurrence_id THEN '${status}' ELSE h.last_status END,
    last_position = $3
    FROM decided d WHERE h.tenant = d.tenant AND h.trigger_id = d.trigger_id`;

function admitted(event: RecordedEvent<OccurrenceAdmitted['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: decide('admitted', `admitted = h.admitted + 1, last_fire_at = GREATEST(h.last_fire_at, ${msSql('$4')})`),
      values: [d.occurrenceId, event.metadata.tenant ?? null, event.position, d.firedAt],
    },
  ];
}

/** BA-1: one more `batched` member; the first member's decision also counts its batch's one execution. */
function batched(event: RecordedEvent<OccurrenceBatched['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: decide('batched', `batched = h.batched + 1, batch_executions = h.batch_executions + $4`),
      values: [d.occurrenceId, event.metadata.tenant ?? null, event.position, d.request ? 1 : 0],
    },
  ];
}

/** SU-1: delivered to a wait-for subscription (no reason, no execution). */
function subscribed(event: RecordedEvent<OccurrenceSubscribed['data']>): SqlQuery[] {
  return [
    {
      text: decide(
        'subscribed',
        'subscribed = h.subscribed + 1, last_reason = CASE WHEN h.last_occurrence_id = d.occurrence_id THEN NULL ELSE h.last_reason END',
      ),
      values: [event.data.occurrenceId, event.metadata.tenant ?? null, event.position],
    },
  ];
}

/** OP-1 counts by disposition and reason: blocked, suppressed (BA-2, AD-4) and coalesced (DD-5) each by reason. */
function refused(
  event: RecordedEvent<OccurrenceBlocked['data'] | OccurrenceSuppressed['data'] | OccurrenceCoalesced['data']>,
  status: 'blocked' | 'suppressed' | 'coalesced',
): SqlQuery[] {
  const d = event.data;
  const set = `${status} = jsonb_set(h.${status}, ARRAY[$4::text], to_jsonb(COALESCE((h.${status} ->> $4::text)::int, 0) + 1)),
    last_reason = CASE WHEN h.last_occurrence_id = d.occurrence_id THEN $4::text ELSE h.last_reason END`;
  return [
    { text: decide(status, set), values: [d.occurrenceId, event.metadata.tenant ?? null, event.position, d.reason] },
  ];
}

/** AD-2: the Mission's state now, which the health of every Trigger serving it follows (mission-health.ts). */
function missionRevised({ tenant, missionId, state }: MissionRevised['data']): SqlQuery[] {
  return [
    {
      text: `INSERT INTO rm_trigger_health_missions (tenant, mission_id, state) VALUES ($1, $2, $3)
             ON CONFLICT (tenant, mission_id) DO UPDATE SET state = EXCLUDED.state`,
      values: [tenant, missionId, state],
    },
  ];
}

export function evolveTriggerHealth(event: RecordedEvent): SqlQuery[] {
  switch (event.type as Handled['type']) {
    case 'MissionRevised':
      return missionRevised((event as RecordedEvent<MissionRevised['data']>).data);
    case 'TriggerRevised':
      return revised(event as RecordedEvent<TriggerRevised['data']>);
    case 'TriggerDeleted':
      return deleted(event as RecordedEvent<TriggerDeleted['data']>);
    case 'OccurrenceObserved':
      return observed(event as RecordedEvent<OccurrenceObserved['data']>);
    case 'OccurrenceAdmitted':
      return admitted(event as RecordedEvent<OccurrenceAdmitted['data']>);
    case 'OccurrenceBlocked':
      return refused(event as RecordedEvent<OccurrenceBlocked['data']>, 'blocked');
    case 'OccurrenceSuppressed':
      return refused(event as RecordedEvent<OccurrenceSuppressed['data']>, 'suppressed');
    case 'OccurrenceBatched':
      return batched(event as RecordedEvent<OccurrenceBatched['data']>);
    case 'OccurrenceCoalesced':
      return refused(event as RecordedEvent<OccurrenceCoalesced['data']>, 'coalesced');
    case 'OccurrenceSubscribed':
      return subscribed(event as RecordedEvent<OccurrenceSubscribed['data']>);
    default:
      return isExecutionEvent(event) ? evolveExecutionCounts(event) : [];
  }
}

/** Up to this many lifecycle events a batch goes as one script of per-event statements (scriptFor). */
const SCRIPTED_EXECUTION_EVENTS = 32;

/** Definitions, folded one by one between the runs of Occurrence events around them. */
const isDefinitionEvent = (event: RecordedEvent) =>
  event.type === 'TriggerRevised' || event.type === 'TriggerDeleted' || event.type === 'MissionRevised';

/** OP-1. Its counters follow the explorer's rows, so it folds only with that read model and just before it. */
export const triggerHealthProjection: Projection = {
  name: TRIGGER_HEALTH_PROJECTION,
  handles: HANDLES,
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: triggerHealthMigrations,
  tables: [
    'rm_trigger_health',
    'rm_trigger_health_executions',
    'rm_trigger_health_missions',
    'rm_trigger_health_kind_moves',
  ],
  async apply(event: RecordedEvent, tx: SqlExecutor): Promise<void> {
    for (const statement of evolveTriggerHealth(event)) await tx.query(statement);
  },
  /**
   * Event by event would rewrite a Trigger's row several times per delivery: runs of Occurrence events are set-based.
   * Execution counters are written by nothing else, so execution events are folded after the rest.
   */
  /**
   * A live batch of lifecycle events alone (a delivery's claims and completions): MOVE_SQL per event in one round
   * trip, instead of a transaction that reads the map rows first and then writes (six round trips). A longer batch
   * (a rebuild's) keeps `foldExecutionCounts`, which rewrites each Trigger's row once.
   */
  scriptFor(events: RecordedEvent[]): SqlQuery[] | null {
    if (events.length > SCRIPTED_EXECUTION_EVENTS || !events.every(isExecutionEvent)) return null;
    return events.flatMap(evolveExecutionCounts);
  },
  async applyBatch(events: RecordedEvent[], tx: SqlExecutor): Promise<void> {
    const ledger = await OccurrenceLedger.load(tx, events);
    let run: RecordedEvent[] = [];
    const executions: RecordedEvent[] = [];
    for (const event of events) {
      if (isExecutionEvent(event)) {
        executions.push(event);
        continue;
      }
      if (!isDefinitionEvent(event)) {
        run.push(event);
        continue;
      }
      await foldOccurrenceRun(tx, run, ledger);
      run = [];
      await this.apply(event, tx);
    }
    await foldOccurrenceRun(tx, run, ledger);
    await foldExecutionCounts(tx, executions);
  },
};
