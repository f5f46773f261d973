import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { OCCURRENCE_PAYLOAD_PATHS, type OccurrenceObserved } from '../../domain/occurrence/occurrence-events.js';
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

export const lineageProjection: Projection = statementProjection({
  name: LINEAGE_PROJECTION,
  handles: ['OccurrenceObserved'],
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: lineageMigrations,
  tables: ['rm_causal_lineage'],
  evolve: (event) =>
    event.type === 'OccurrenceObserved' ? observed(event as RecordedEvent<OccurrenceObserved['data']>) : [],
});
