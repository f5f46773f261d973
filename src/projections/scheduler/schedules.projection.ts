import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { OCCURRENCE_PAYLOAD_PATHS } from '../../domain/occurrence/occurrence-events.js';
import type { SqlExecutor } from '../sql-client.js';
import { nextActivation, type ActivationBasis } from '../../domain/schedule/activation.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import type { TriggerDeleted, TriggerRevised } from '../../domain/trigger/trigger.js';
import { isoSql } from '../occurrences/cursor.js';
import type { Projection } from '../runner/projection.js';
import type { IndexedEvent } from './due-index.js';
import { schedulesMigrations } from './schedules.migrations.js';
import { foldIntoIndex } from './due-index.writes.js';

export const SCHEDULES_PROJECTION = 'schedules';

const HANDLES = [
  'TriggerRevised',
  'TriggerDeleted',
  'ScheduleMaterialized',
  'MissedOccurrencesSkipped',
  'OccurrenceObserved',
] as const;

interface TriggerColumns {
  type: string | null;
  trigger_revision: number;
  enabled: boolean;
  deleted: boolean;
  definition: { schedule: NormalizedScheduleDefinition | null } | null;
  epoch: number | null;
  activation: number | null;
  activated_at: string | null;
}

/** The activation (SC-3 epoch, SC-5 boundary) needs the previous revision's schedule block: the row is read first. */
async function revised(event: RecordedEvent<TriggerRevised['data']>, tx: SqlExecutor): Promise<void> {
  const d = event.data;
  const { rows } = await tx.query<TriggerColumns>(
    `SELECT type, trigger_revision, enabled, deleted, definition, epoch, activation, ${isoSql('activated_at')} AS activated_at
       FROM rm_schedules WHERE tenant = $1 AND trigger_id = $2 FOR UPDATE`,
    [d.tenant, d.triggerId],
  );
  const row = rows[0];
  if (row && row.trigger_revision >= d.revision) return;
  const schedule = d.definition.type === 'schedule' ? d.definition.schedule : null;
  if (!row && schedule === null) return;
  const basis: ActivationBasis | null = row
    ? {
        schedule: row.type === 'schedule' ? (row.definition?.schedule ?? null) : null,
        enabled: row.enabled,
        deleted: row.deleted,
        activation:
          row.epoch !== null && row.activation !== null && row.activated_at !== null
            ? { epoch: row.epoch, activation: row.activation, activatedAt: row.activated_at }
            : null,
      }
    : null;
  const activation = nextActivation(basis, d);
  const definition =
    schedule === null ? null : JSON.stringify({ schedule, classification: d.definition.constraints.classification });
  await tx.query(
    `INSERT INTO rm_schedules AS r (tenant, trigger_id, type, trigger_revision, mission_id, enabled, deleted, definition, tzdata_pinned, epoch, activation, activated_at, last_position)
     VALUES ($1, $2, $3, $4, $5, $6, false, $7::jsonb, $8, $9, $10, $11::timestamptz, $12)
     ON CONFLICT (tenant, trigger_id) DO UPDATE SET type = EXCLUDED.type, trigger_revision = EXCLUDED.trigger_revision, mission_id = EXCLUDED.mission_id,
       enabled = EXCLUDED.enabled, deleted = false, definition = EXCLUDED.definition, tzdata_pinned = EXCLUDED.tzdata_pinned, epoch = EXCLUDED.epoch,
       activation = EXCLUDED.activation, activated_at = EXCLUDED.activated_at, last_position = EXCLUDED.last_position
     WHERE r.trigger_revision < EXCLUDED.trigger_revision`,
    [
      d.tenant,
      d.triggerId,
      d.definition.type,
      d.revision,
      d.definition.missionId,
      d.definition.enabled,
      definition,
      d.pins?.tzdataVersion ?? null,
      activation?.epoch ?? null,
      activation?.activation ?? null,
      activation?.activatedAt ?? null,
      event.position,
    ],
  );
}

async function deleted(event: RecordedEvent<TriggerDeleted['data']>, tx: SqlExecutor): Promise<void> {
  const d = event.data;
  await tx.query(
    'UPDATE rm_schedules SET deleted = true, trigger_revision = $3, last_position = $4 WHERE tenant = $1 AND trigger_id = $2 AND trigger_revision < $3',
    [d.tenant, d.triggerId, d.revision, event.position],
  );
}

const isIndexed = (event: RecordedEvent): boolean =>
  event.type === 'ScheduleMaterialized' ||
  event.type === 'MissedOccurrencesSkipped' ||
  (event.type === 'OccurrenceObserved' && (event.data as { kind?: string }).kind === 'schedule');

/** The due index and the schedule part of the operator view (OP-1). */
export const schedulesProjection: Projection = {
  name: SCHEDULES_PROJECTION,
  handles: HANDLES,
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: schedulesMigrations,
  tables: ['rm_schedules'],
  async apply(event: RecordedEvent, tx: SqlExecutor): Promise<void> {
    if (event.type === 'TriggerRevised') return revised(event as RecordedEvent<TriggerRevised['data']>, tx);
    if (event.type === 'TriggerDeleted') return deleted(event as RecordedEvent<TriggerDeleted['data']>, tx);
    if (isIndexed(event)) return foldIntoIndex(tx, [event as IndexedEvent]);
  },
  /** One read and one write per run between two Trigger revisions: 10,000 schedules are two statements, not 20,000. */
  async applyBatch(events: RecordedEvent[], tx: SqlExecutor): Promise<void> {
    let run: IndexedEvent[] = [];
    for (const event of events) {
      if (isIndexed(event)) run.push(event as IndexedEvent);
      if (isIndexed(event) || event.type === 'OccurrenceObserved') continue;
      await foldIntoIndex(tx, run);
      run = [];
      await this.apply(event, tx);
    }
    await foldIntoIndex(tx, run);
  },
};
