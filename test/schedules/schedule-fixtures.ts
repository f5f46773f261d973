import { IMPLEMENTED_CAPABILITIES } from '../../src/adapters/config/capabilities.js';
import type { EventStore } from '../../src/domain/ports/event-store.js';
import type { SqlExecutor } from '../../src/projections/sql-client.js';
import { handleCommand } from '../../src/commands/shared/write-kernel.js';
import { currentMission } from '../../src/commands/shared/lookups.js';
import { triggerStream } from '../../src/domain/shared/ids.js';
import { triggerDecider } from '../../src/domain/trigger/trigger.js';

/** 2020-01-01 UTC: far enough in the past that admission (real database clock) is never before an instant (SC-4). */
export const at = (hhmmss: string): string => `2020-01-01T${hhmmss}.000Z`;
export const minute = (m: number): string =>
  at(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00`);
export const minutes = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => minute(from + i));

export const GRANTS = {
  maxExecutionsPerHour: 100_000,
  maxConcurrent: 100,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

export interface ScheduleSpec {
  tenant: string;
  triggerId: string;
  missionId: string;
  /** Activation time, as the revision handler would take it from the database clock. */
  activatedAt: string;
  schedule: Record<string, unknown>;
  enabled?: boolean;
  tzdataVersion?: string;
  extra?: Record<string, unknown>;
}

/**
 * Revises a schedule Trigger through the real decider at a chosen activation time. The HTTP handler
 * would stamp the real database time; SC-5 runs need activations in a simulated past.
 */
export async function reviseSchedule(store: EventStore, spec: ScheduleSpec): Promise<number> {
  const {
    tenant,
    triggerId,
    missionId,
    activatedAt,
    schedule,
    enabled = true,
    tzdataVersion = process.versions.tz ?? 'unknown',
    extra = {},
  } = spec;
  const handled = await handleCommand(
    store,
    triggerStream(tenant, triggerId),
    triggerDecider,
    {
      type: 'ReviseTrigger',
      tenant,
      triggerId,
      definition: { missionId, type: 'schedule', enabled, schedule, ...extra },
      reason: 'test',
      actor: 'svc-test',
      at: activatedAt,
      mission: await currentMission(store, tenant, missionId),
      capabilities: IMPLEMENTED_CAPABILITIES,
      pins: { tzdataVersion },
    },
    { tenant, actor: 'svc-test', correlationId: `c-${triggerId}` },
  );
  return handled.position;
}

/** Every OccurrenceObserved of a Trigger in the log: the instants fired, one row per Occurrence. */
export async function firedOf(sql: SqlExecutor, tenant: string, triggerId: string): Promise<string[]> {
  const { rows } = await sql.query<{ at: string }>(
    `SELECT data->>'scheduledAt' AS at FROM events WHERE type = 'OccurrenceObserved' AND data->>'tenant' = $1 AND data->>'triggerId' = $2 ORDER BY 1`,
    [tenant, triggerId],
  );
  return rows.map((r) => r.at);
}
