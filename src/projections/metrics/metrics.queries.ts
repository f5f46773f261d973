import type { SqlExecutor } from '../sql-client.js';

export interface KindTotals {
  /** The Trigger type, which is its Occurrences' kind. */
  kind: string;
  observed: number;
  admitted: number;
  blocked: number;
  executions: { pending: number; claimed: number; retrying: number; dead: number };
}

/**
 * OP-4: what /metrics reports, summed from the per-Trigger counts the trigger-health read model already keeps
 * (one row per Trigger, so a scrape never scans Occurrences or executions). Tenants and Triggers are summed away.
 * Pending is counted as the health rows count it: admissions and closed batches (BA-1), less those started.
 */
export async function totalsByKind(sql: SqlExecutor): Promise<KindTotals[]> {
  const { rows } = await sql.query<Record<string, string | number | null>>({
    name: 'reveille_metrics_totals_v2',
    text: `SELECT coalesce(type, 'unknown') AS kind,
                  sum(observed)::bigint AS observed,
                  sum(admitted)::bigint AS admitted,
                  sum((SELECT coalesce(sum(value::bigint), 0) FROM jsonb_each_text(blocked)))::bigint AS blocked,
                  sum(greatest(0, admitted + batch_executions - executions_started + executions_repending))::bigint AS pending,
                  sum(executions_claimed)::bigint AS claimed,
                  sum(executions_retrying)::bigint AS retrying,
                  sum(executions_dead)::bigint AS dead
             FROM rm_trigger_health GROUP BY 1 ORDER BY 1`,
    values: [],
  });
  return rows.map((row) => ({
    kind: String(row.kind),
    observed: Number(row.observed ?? 0),
    admitted: Number(row.admitted ?? 0),
    blocked: Number(row.blocked ?? 0),
    executions: {
      pending: Number(row.pending ?? 0),
      claimed: Number(row.claimed ?? 0),
      retrying: Number(row.retrying ?? 0),
      dead: Number(row.dead ?? 0),
    },
  }));
}
