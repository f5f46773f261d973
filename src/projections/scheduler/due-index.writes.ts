import type { SqlExecutor } from '../sql-client.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import { foldDueIndex, type DueIndexState, type IndexedEvent, type TriggerKey } from './due-index.js';

export interface DueIndexRead {
  key: TriggerKey;
  indexed: DueIndexState;
  schedule: NormalizedScheduleDefinition | null;
}

/** Compare-and-set: written only if the row still holds `expected`. */
export interface DueIndexUpdate {
  key: TriggerKey;
  expected: Pick<DueIndexState, 'statePosition' | 'scheduleRevision' | 'skipped'>;
  next: DueIndexState;
}

const keyOf = (k: TriggerKey): string => JSON.stringify([k.tenant, k.triggerId]);

interface IndexedStateRow {
  tenant: string;
  trigger_id: string;
  schedule_revision: number;
  state: DueIndexState['state'];
  state_position: string | number;
  routine_instants: number;
  skipped: DueIndexState['skipped'];
  last_position: string | number;
  definition: { schedule: NormalizedScheduleDefinition } | null;
}

export function indexedStateOf(row: Omit<IndexedStateRow, 'tenant' | 'trigger_id' | 'definition'>): DueIndexState {
  return {
    scheduleRevision: row.schedule_revision,
    state: row.state,
    statePosition: Number(row.state_position),
    routineInstants: row.routine_instants,
    skipped: row.skipped,
    lastPosition: Number(row.last_position),
  };
}

export const INDEXED_STATE_COLUMNS =
  'schedule_revision, state, state_position, routine_instants, skipped, last_position';

/** The projection mostly re-reads rows the materializer wrote through: their definitions are not parsed again. */
export async function readDueIndex(
  tx: SqlExecutor,
  keys: readonly TriggerKey[],
  withDefinition: (key: TriggerKey) => boolean = () => true,
  /** Newer rows already hold those events. */
  before?: (key: TriggerKey) => number,
): Promise<Map<string, DueIndexRead>> {
  if (keys.length === 0) return new Map();
  const wanted = keys.filter(withDefinition);
  const { rows } = await tx.query<IndexedStateRow>(
    `SELECT r.tenant, r.trigger_id, ${INDEXED_STATE_COLUMNS},
            CASE WHEN (r.tenant, r.trigger_id) IN (SELECT * FROM unnest($4::text[], $5::text[])) THEN definition END AS definition
       FROM rm_schedules r JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS k(tenant, trigger_id, before) ON r.tenant = k.tenant AND r.trigger_id = k.trigger_id
      WHERE r.state_position < k.before`,
    [
      keys.map((k) => k.tenant),
      keys.map((k) => k.triggerId),
      keys.map((k) => before?.(k) ?? Number.MAX_SAFE_INTEGER),
      wanted.map((k) => k.tenant),
      wanted.map((k) => k.triggerId),
    ],
  );
  return new Map(
    rows.map((r) => [
      keyOf({ tenant: r.tenant, triggerId: r.trigger_id }),
      {
        key: { tenant: r.tenant, triggerId: r.trigger_id },
        indexed: indexedStateOf(r),
        schedule: r.definition?.schedule ?? null,
      },
    ]),
  );
}

export function dueIndexUpdateRow({ key, expected, next }: DueIndexUpdate): Record<string, unknown> {
  return {
    tenant: key.tenant,
    trigger_id: key.triggerId,
    expected_position: expected.statePosition,
    expected_revision: expected.scheduleRevision,
    schedule_revision: next.scheduleRevision,
    state: next.state,
    state_activation: next.state?.activation ?? null,
    state_next_due_at: next.state?.nextDueAt ?? null,
    state_position: next.statePosition,
    routine_instants: next.routineInstants,
    last_position: next.lastPosition,
    // unchanged (the usual case): not sent, kept as it is
    skipped: next.skipped === expected.skipped ? null : next.skipped,
  };
}

/** Returns how many rows still held their expected tokens. */
export async function writeDueIndex(tx: SqlExecutor, updates: readonly DueIndexUpdate[]): Promise<number> {
  return writeDueIndexRows(
    tx,
    updates.map((u) => JSON.stringify(dueIndexUpdateRow(u))),
  );
}

export async function writeDueIndexRows(tx: SqlExecutor, rows: readonly string[]): Promise<number> {
  if (rows.length === 0) return 0;
  const { rowCount } = await tx.query({
    name: 'reveille_write_due_index',
    text: `UPDATE rm_schedules r SET schedule_revision = x.schedule_revision, state = x.state, state_activation = x.state_activation,
             state_next_due_at = x.state_next_due_at, state_position = x.state_position, routine_instants = x.routine_instants,
             skipped = COALESCE(x.skipped, r.skipped), last_position = GREATEST(r.last_position, x.last_position)
             FROM jsonb_to_recordset($1::jsonb) AS x(tenant text, trigger_id text, expected_position bigint, expected_revision integer,
               schedule_revision integer, state jsonb, state_activation integer, state_next_due_at timestamptz, state_position bigint,
               routine_instants integer, skipped jsonb, last_position bigint)
            WHERE r.tenant = x.tenant AND r.trigger_id = x.trigger_id AND r.state_position = x.expected_position AND r.schedule_revision = x.expected_revision`,
    values: [`[${rows.join(',')}]`],
  });
  return rowCount;
}

export const eventKey = (event: IndexedEvent): TriggerKey => ({
  tenant: event.data.tenant,
  triggerId: event.data.triggerId,
});

/**
 * Optimistic: the materializer has usually written these events through, so most folds change nothing and take no
 * lock (a lock would make a running materializer skip or wait). A row that moved meanwhile is folded again.
 */
export async function foldIntoIndex(tx: SqlExecutor, events: readonly IndexedEvent[]): Promise<void> {
  let pending = new Map(events.map((e) => [keyOf(eventKey(e)), eventKey(e)]));
  // A schedule Occurrence at or before the row's boundary is already folded (the usual case: the
  // materializer wrote it through), so only rows with a later one need their definition.
  const latestFire = new Map<string, string>();
  for (const e of events)
    if (e.type === 'OccurrenceObserved' && e.data.scheduledAt) latestFire.set(keyOf(eventKey(e)), e.data.scheduledAt);
  // A row's decisions commit one after another (each compares-and-sets the last), so a row whose
  // recorded state is at or past an event's position already holds it: those rows are not even read.
  const newest = new Map<string, number>();
  for (const e of events) newest.set(keyOf(eventKey(e)), Math.max(newest.get(keyOf(eventKey(e))) ?? 0, e.position));
  const before = (key: TriggerKey) => newest.get(keyOf(key)) ?? Number.MAX_SAFE_INTEGER;
  for (let attempt = 0; pending.size > 0; attempt++) {
    if (attempt >= 20) throw new Error('the schedule index kept moving under the projection');
    const bare = await readDueIndex(tx, [...pending.values()], () => false, before);
    const needs = (key: TriggerKey): boolean => {
      const fire = latestFire.get(keyOf(key));
      const boundary = bare.get(keyOf(key))?.indexed.state?.boundary;
      return fire !== undefined && (boundary === undefined || Date.parse(fire) > Date.parse(boundary));
    };
    const refetch = [...pending.values()].filter((key) => bare.has(keyOf(key)) && needs(key));
    const reads =
      refetch.length === 0 ? bare : new Map([...bare, ...(await readDueIndex(tx, refetch, () => true, before))]);
    const folded = new Map<string, DueIndexState>();
    for (const event of events) {
      const key = keyOf(eventKey(event));
      const found = pending.has(key) ? reads.get(key) : undefined;
      if (found) folded.set(key, foldDueIndex(folded.get(key) ?? found.indexed, found.schedule, event));
    }
    const updates = [...folded.entries()]
      .filter(([key, next]) => next !== reads.get(key)!.indexed)
      .map(([key, next]) => ({ key: reads.get(key)!.key, expected: reads.get(key)!.indexed, next }));
    if ((await writeDueIndex(tx, updates)) === updates.length) return;
    const written = await readDueIndex(
      tx,
      updates.map((u) => u.key),
      () => false,
    );
    // rows now holding what this fold wrote are done; the others moved under it and are folded again
    pending = new Map(
      updates
        .filter(
          (u) =>
            written.get(keyOf(u.key))?.indexed.statePosition !== u.next.statePosition ||
            written.get(keyOf(u.key))?.indexed.scheduleRevision !== u.next.scheduleRevision,
        )
        .map((u) => [keyOf(u.key), u.key]),
    );
  }
}
