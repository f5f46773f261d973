import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { OCCURRENCE_PAYLOAD_PATHS, type OccurrenceObserved } from '../../domain/occurrence/occurrence-events.js';
import type { OperationRecorded } from '../../domain/execution/execution-events.js';
import { msSql } from '../occurrences/cursor.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import type { SqlQuery } from '../sql-client.js';
import { lineageMigrations } from './lineage.migrations.js';

export const LINEAGE_PROJECTION = 'lineage';

/**
 * One row per reference of the ancestry an Occurrence was observed with (immutable, CA-1), numbered from the
 * nearest; a root or an `unknown` ancestry has none. A replayed event inserts nothing new.
 */
function observed(event: RecordedEvent<OccurrenceObserved['data']>): SqlQuery[] {
  const { tenant, occurrenceId, triggerId, causal } = event.data;
  if (!causal || causal.ancestry === 'unknown' || causal.ancestry.length === 0) return [];
  return [
    {
      text: `INSERT INTO rm_causal_lineage (tenant, occurrence_id, distance, ancestor_kind, ancestor_id, ancestor_trigger_id,
               trigger_id, parent_id, depth, position)
             SELECT $1, $2, jsonb_array_length($6::jsonb) - e.ord::int + 1,
                    CASE WHEN e.value->>'occurrenceId' IS NOT NULL THEN 'occurrence' ELSE 'operation' END,
                    COALESCE(e.value->>'occurrenceId', e.value->>'operationId'), e.value->>'triggerId', $3, $4, $5, $7
               FROM jsonb_array_elements($6::jsonb) WITH ORDINALITY AS e(value, ord)
             ON CONFLICT DO NOTHING`,
      values: [
        tenant,
        occurrenceId,
        triggerId,
        causal.parentId,
        causal.depth,
        JSON.stringify(causal.ancestry),
        event.position,
      ],
    },
  ];
}

/** CA-2: the first Operation to reserve a key owns it (as on its correlation stream); a replay inserts nothing. */
function operation(event: RecordedEvent<OperationRecorded['data']>): SqlQuery[] {
  const { tenant, correlation, operationId, executionId, occurrenceId, triggerId, child, at } = event.data;
  // Logs written before the API refused a correlation that is not an object hold Operations without one: nothing
  // can link to them, and a row without its key failed every batch of this read model for good.
  if (typeof correlation?.sourceId !== 'string' || typeof correlation.key !== 'string') return [];
  return [
    {
      text: `INSERT INTO rm_causal_operations (tenant, source_id, correlation_key, operation_id, execution_id, occurrence_id,
               trigger_id, child_depth, recorded_at, position)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${msSql('$9')}, $10)
             ON CONFLICT DO NOTHING`,
      values: [
        tenant,
        correlation.sourceId,
        correlation.key,
        operationId,
        executionId,
        occurrenceId,
        triggerId,
        child.depth,
        at,
        event.position,
      ],
    },
  ];
}

function evolveLineage(event: RecordedEvent): SqlQuery[] {
  if (event.type === 'OccurrenceObserved') return observed(event as RecordedEvent<OccurrenceObserved['data']>);
  if (event.type === 'OperationRecorded') return operation(event as RecordedEvent<OperationRecorded['data']>);
  return [];
}

export const lineageProjection: Projection = statementProjection({
  name: LINEAGE_PROJECTION,
  handles: ['OccurrenceObserved', 'OperationRecorded'],
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: lineageMigrations,
  tables: ['rm_causal_lineage', 'rm_causal_operations'],
  readIndexes: ['rm_causal_lineage_descendants', 'rm_causal_operations_by_occurrence'],
  evolve: evolveLineage,
});
