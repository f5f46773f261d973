import type { SqlExecutor } from '../sql-client.js';
import type { CausalLink, OccurrenceKind } from '../../domain/occurrence/occurrence-events.js';
import { cursorInstant, decodeCursor, encodeCursor, isoSql } from './cursor.js';

export const OCCURRENCE_STATUSES = [
  'observed',
  'admitted',
  'blocked',
  'suppressed',
  'coalesced',
  'batched',
  'subscribed',
] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

/** The Occurrence detail of the explorer (OP-2). */
export interface OccurrenceView {
  occurrenceId: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  kind: OccurrenceKind;
  status: OccurrenceStatus;
  reason: string | null;
  auth: { state: string; sourceId: string | null; keyId: string | null };
  externalId: string | null;
  observedAt: string;
  scheduledAt: string | null;
  firedAt: string | null;
  decidedAt: string | null;
  dedupeIdentity: Record<string, unknown>;
  executionId: string | null;
  causal: CausalLink;
  /**
   * Blocked or suppressed: the admission policy's evidence; otherwise what was observed (digest, refs,
   * classification), for an admission with what its prefilters found (`prefilters`, AD-4).
   */
  evidence: Record<string, unknown>;
  /** Deliveries of the same identity with another payload (OC-4). */
  conflicts: number;
  /** DD-5: decided as the last member of a coalesced group: every member's id in acceptance order. */
  members?: string[];
  /** DD-5: decided `coalesced`: the group member admitted for it (api.md names it beside the reason). */
  coalescedInto?: string;
}

export interface OccurrenceFilter {
  triggerId?: string;
  status?: OccurrenceStatus;
  reason?: string;
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface OccurrenceRow {
  occurrence_id: string;
  trigger_id: string;
  trigger_revision: number;
  mission_id: string;
  kind: OccurrenceKind;
  status: OccurrenceStatus;
  reason: string | null;
  auth: OccurrenceView['auth'];
  external_id: string | null;
  observed_at: string;
  scheduled_at: string | null;
  fired_at: string | null;
  decided_at: string | null;
  dedupe_identity: Record<string, unknown>;
  execution_id: string | null;
  causal: CausalLink;
  evidence: Record<string, unknown>;
  decision_evidence: Record<string, unknown> | null;
  conflicts: number;
}

const SELECT = `SELECT occurrence_id, trigger_id, trigger_revision, mission_id, kind, status, reason, auth, external_id,
  ${isoSql('observed_at')} AS observed_at, ${isoSql('scheduled_at')} AS scheduled_at, ${isoSql('fired_at')} AS fired_at,
  ${isoSql('decided_at')} AS decided_at, dedupe_identity, execution_id, causal, evidence, decision_evidence, conflicts
  FROM rm_occurrences`;

const CURSOR_LIST = 'occurrences';

function toView(row: OccurrenceRow): OccurrenceView {
  return {
    occurrenceId: row.occurrence_id,
    triggerId: row.trigger_id,
    triggerRevision: row.trigger_revision,
    missionId: row.mission_id,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    auth: row.auth,
    externalId: row.external_id,
    observedAt: row.observed_at,
    scheduledAt: row.scheduled_at,
    firedAt: row.fired_at,
    decidedAt: row.decided_at,
    dedupeIdentity: row.dedupe_identity,
    executionId: row.execution_id,
    causal: row.causal,
    // Admitted: what was observed plus what the prefilters found (AD-4); otherwise the decision's own evidence.
    evidence:
      row.status === 'admitted'
        ? { ...row.evidence, ...(row.decision_evidence ?? {}) }
        : (row.decision_evidence ?? row.evidence),
    conflicts: Number(row.conflicts),
    // api.md `members?`: the ids this Occurrence stands for — DD-5 a coalesced group's representative its group's
    // (also when it then ran in a batch, `evidence.coalesced`), BA-1 a batch's first member its batch's.
    ...(Array.isArray(row.decision_evidence?.coalesced)
      ? { members: row.decision_evidence.coalesced as string[] }
      : Array.isArray(row.decision_evidence?.members)
        ? { members: row.decision_evidence.members as string[] }
        : {}),
    // api.md's coalesce block names `coalescedInto` as part of the decision; the evidence keeps it too.
    ...(row.status === 'coalesced' && typeof row.decision_evidence?.coalescedInto === 'string'
      ? { coalescedInto: row.decision_evidence.coalescedInto }
      : {}),
  };
}

export async function getOccurrence(
  sql: SqlExecutor,
  tenant: string,
  occurrenceId: string,
): Promise<OccurrenceView | null> {
  const { rows } = await sql.query<OccurrenceRow>(`${SELECT} WHERE tenant = $1 AND occurrence_id = $2`, [
    tenant,
    occurrenceId,
  ]);
  const row = rows[0];
  return row ? toView(row) : null;
}

/** Newest first: by observedAt, then occurrenceId, both descending; throws InvalidCursor on a foreign cursor. */
export async function listOccurrences(
  sql: SqlExecutor,
  tenant: string,
  filter: OccurrenceFilter,
): Promise<Page<OccurrenceView>> {
  const where = ['tenant = $1'];
  const values: unknown[] = [tenant];
  const add = (condition: (n: number) => string, value: unknown) => {
    values.push(value);
    where.push(condition(values.length));
  };
  if (filter.triggerId !== undefined) add((n) => `trigger_id = $${n}`, filter.triggerId);
  if (filter.status !== undefined) add((n) => `status = $${n}`, filter.status);
  if (filter.reason !== undefined) add((n) => `reason = $${n}`, filter.reason);
  if (filter.cursor !== undefined) {
    const [observedAt, occurrenceId] = decodeCursor(CURSOR_LIST, filter.cursor, 2) as [string, string];
    values.push(cursorInstant(observedAt), occurrenceId);
    where.push(`(observed_at, occurrence_id) < ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  values.push(filter.limit + 1);
  const { rows } = await sql.query<OccurrenceRow>(
    `${SELECT} WHERE ${where.join(' AND ')} ORDER BY observed_at DESC, occurrence_id DESC LIMIT $${values.length}`,
    values,
  );
  const items = rows.slice(0, filter.limit).map(toView);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > filter.limit && last ? encodeCursor(CURSOR_LIST, [last.observedAt, last.occurrenceId]) : null;
  return { items, nextCursor };
}
