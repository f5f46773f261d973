import type { CausalLink } from '../../domain/occurrence/occurrence-events.js';
import { cursorNumber, decodeCursor, encodeCursor, isoSql } from '../occurrences/cursor.js';
import type { Page } from '../occurrences/occurrences.queries.js';
import type { SqlExecutor } from '../sql-client.js';

/** One reference of an Occurrence's recorded ancestry, nearest first; an Occurrence's with its current status. */
export type AncestorView =
  | {
      kind: 'occurrence';
      occurrenceId: string;
      triggerId: string;
      distance: number;
      status: string | null;
      reason: string | null;
    }
  | { kind: 'operation'; operationId: string; triggerId: string; distance: number };

export interface DescendantView {
  occurrenceId: string;
  triggerId: string;
  /** The Operation it answered. */
  parentId: string | null;
  depth: number;
  /** How many references back this Occurrence's ancestry names the one asked about. */
  distance: number;
  status: string | null;
  reason: string | null;
  observedAt: string | null;
}

/** CA-1: the ancestry as recorded with the Occurrence (bounded), nearest first, each Occurrence with its status. */
export async function ancestorsOf(sql: SqlExecutor, tenant: string, causal: CausalLink): Promise<AncestorView[]> {
  if (causal.ancestry === 'unknown') return [];
  const chain = [...causal.ancestry].reverse();
  const ids = chain.flatMap((entry) => (entry.occurrenceId ? [entry.occurrenceId] : []));
  const { rows } =
    ids.length === 0
      ? { rows: [] }
      : await sql.query<{ occurrence_id: string; status: string; reason: string | null }>(
          `SELECT occurrence_id, status, reason FROM rm_occurrences WHERE tenant = $1 AND occurrence_id = ANY($2::text[])`,
          [tenant, ids],
        );
  const found = new Map(rows.map((row) => [row.occurrence_id, row]));
  return chain.map((entry, i): AncestorView => {
    if (entry.occurrenceId) {
      const row = found.get(entry.occurrenceId);
      return {
        kind: 'occurrence',
        occurrenceId: entry.occurrenceId,
        triggerId: entry.triggerId,
        distance: i + 1,
        status: row?.status ?? null,
        reason: row?.reason ?? null,
      };
    }
    return { kind: 'operation', operationId: entry.operationId ?? '', triggerId: entry.triggerId, distance: i + 1 };
  });
}

const CURSOR_LIST = 'lineage-descendants';

/** Every Occurrence whose recorded ancestry names this one: nearest first, then in log order; keyset-paginated. */
export async function descendantsOf(
  sql: SqlExecutor,
  tenant: string,
  occurrenceId: string,
  page: { limit: number; cursor?: string },
): Promise<Page<DescendantView>> {
  const values: unknown[] = [tenant, occurrenceId];
  let after = '';
  if (page.cursor !== undefined) {
    const [distance, position] = decodeCursor(CURSOR_LIST, page.cursor, 2) as [string, string];
    values.push(cursorNumber(distance, 'int'), cursorNumber(position, 'bigint'));
    after = `AND (l.distance, l.position) > ($3::int, $4::bigint)`;
  }
  values.push(page.limit + 1);
  const { rows } = await sql.query<{
    occurrence_id: string;
    trigger_id: string;
    parent_id: string | null;
    depth: number;
    distance: number;
    position: string;
    status: string | null;
    reason: string | null;
    observed_at: string | null;
  }>(
    `SELECT l.occurrence_id, l.trigger_id, l.parent_id, l.depth, l.distance, l.position::text AS position,
            o.status, o.reason, ${isoSql('o.observed_at')} AS observed_at
       FROM rm_causal_lineage l
       LEFT JOIN rm_occurrences o ON o.tenant = l.tenant AND o.occurrence_id = l.occurrence_id
      WHERE l.tenant = $1 AND l.ancestor_kind = 'occurrence' AND l.ancestor_id = $2 ${after}
      ORDER BY l.distance, l.position
      LIMIT $${values.length}`,
    values,
  );
  const served = rows.slice(0, page.limit);
  const items = served.map((row) => ({
    occurrenceId: row.occurrence_id,
    triggerId: row.trigger_id,
    parentId: row.parent_id,
    depth: row.depth,
    distance: row.distance,
    status: row.status,
    reason: row.reason,
    observedAt: row.observed_at,
  }));
  const last = served[served.length - 1];
  const nextCursor =
    rows.length > page.limit && last ? encodeCursor(CURSOR_LIST, [String(last.distance), last.position]) : null;
  return { items, nextCursor };
}

/** CA-2: an Operation the Occurrence's execution recorded, with the correlation it expects. */
export interface OperationView {
  operationId: string;
  executionId: string;
  correlation: { sourceId: string; key: string };
  recordedAt: string;
}

/** The Operations of the Occurrence's execution, in log order (at most MAX_OPERATIONS_PER_EXECUTION). */
export async function operationsOf(sql: SqlExecutor, tenant: string, occurrenceId: string): Promise<OperationView[]> {
  const { rows } = await sql.query<{
    operation_id: string;
    execution_id: string;
    source_id: string;
    correlation_key: string;
    recorded_at: string;
  }>(
    `SELECT operation_id, execution_id, source_id, correlation_key, ${isoSql('recorded_at')} AS recorded_at
       FROM rm_causal_operations WHERE tenant = $1 AND occurrence_id = $2 ORDER BY position LIMIT 500`,
    [tenant, occurrenceId],
  );
  return rows.map((row) => ({
    operationId: row.operation_id,
    executionId: row.execution_id,
    correlation: { sourceId: row.source_id, key: row.correlation_key },
    recordedAt: row.recorded_at,
  }));
}
