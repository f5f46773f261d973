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
 * Occurrences are counted by the kind their Trigger had when they were counted: what a Trigger counted before its
 * type changed is filed under the old kind (rm_trigger_health_kind_moves), so no total goes down.
 * Pending is counted as the health rows count it: admissions and closed batches (BA-1), less those started.
 */
export async function totalsByKind(sql: SqlExecutor): Promise<KindTotals[]> {
  const { rows } = await sql.query<Record<string, string | number | null>>({
    name: 'reveille_metrics_totals_v3',
    text: `SELECT kind, sum(observed)::bigint AS observed, sum(admitted)::bigint AS admitted,
                  sum(blocked)::bigint AS blocked, sum(pending)::bigint AS pending, sum(claimed)::bigint AS claimed,
                  sum(retrying)::bigint AS retrying, sum(dead)::bigint AS dead
             FROM (SELECT coalesce(type, 'unknown') AS kind,
                          observed - observed_moved AS observed,
                          admitted - admitted_moved AS admitted,
                          (SELECT coalesce(sum(value::bigint), 0) FROM jsonb_each_text(blocked)) - blocked_moved AS blocked,
                          greatest(0, admitted + batch_executions - executions_started + executions_repending) AS pending,
                          executions_claimed AS claimed, executions_retrying AS retrying, executions_dead AS dead
                     FROM rm_trigger_health
                   UNION ALL
                   SELECT kind, observed, admitted, blocked, 0, 0, 0, 0 FROM rm_trigger_health_kind_moves) counted
            GROUP BY kind ORDER BY kind`,
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
