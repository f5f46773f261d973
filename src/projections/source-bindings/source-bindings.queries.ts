import type { SqlExecutor } from '../sql-client.js';

/**
 * An empty or absent type list means every type; a delivery without an event type matches only those.
 * Disabled Triggers are included: admission records the block.
 */
export async function boundTriggerIds(
  sql: SqlExecutor,
  tenant: string,
  sourceId: string,
  eventType: string | null,
): Promise<string[]> {
  const result = await sql.query<{ trigger_id: string }>({
    name: 'reveille_bound_triggers',
    text: `SELECT trigger_id FROM rm_source_bindings
      WHERE tenant = $1 AND source_id = $2 AND NOT deleted
        AND (event_types IS NULL OR jsonb_array_length(event_types) = 0
             OR ($3::text IS NOT NULL AND event_types @> jsonb_build_array($3::text)))
      ORDER BY trigger_id`,
    values: [tenant, sourceId, eventType],
  });
  return result.rows.map((r) => r.trigger_id);
}
