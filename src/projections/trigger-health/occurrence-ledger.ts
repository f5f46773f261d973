import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor } from '../sql-client.js';

interface LedgerRow {
  tenant: string;
  triggerId: string;
  status: 'observed' | 'admitted' | 'blocked' | 'suppressed' | 'batched' | 'coalesced' | 'subscribed';
}

/** Counts each Occurrence once: the explorer folds right after this read model, in the same transaction. */
export class OccurrenceLedger {
  private constructor(private readonly rows: Map<string, LedgerRow[]>) {}

  static async load(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<OccurrenceLedger> {
    const ids = [
      ...new Set(
        events
          .filter((e) => e.type.startsWith('Occurrence'))
          .map((e) => (e.data as { occurrenceId: string }).occurrenceId),
      ),
    ];
    const rows = new Map<string, LedgerRow[]>();
    if (ids.length === 0) return new OccurrenceLedger(rows);
    // ARRAY(SELECT …) hides the list's length from the planner, which would otherwise scan a young, not yet
    // analysed table instead of probing its index.
    const { rows: found } = await tx.query<{
      tenant: string;
      occurrence_id: string;
      trigger_id: string;
      status: LedgerRow['status'];
    }>(
      `SELECT tenant, occurrence_id, trigger_id, status FROM rm_occurrences WHERE occurrence_id = ANY(ARRAY(SELECT unnest($1::text[])))`,
      [ids],
    );
    for (const r of found)
      rows.set(r.occurrence_id, [
        ...(rows.get(r.occurrence_id) ?? []),
        { tenant: r.tenant, triggerId: r.trigger_id, status: r.status },
      ]);
    return new OccurrenceLedger(rows);
  }

  /** true for a first observation (OC-3: a later one of the same Occurrence changes nothing). */
  observe(tenant: string, occurrenceId: string, triggerId: string): boolean {
    const rows = this.rows.get(occurrenceId) ?? [];
    if (rows.some((r) => r.tenant === tenant)) return false;
    this.rows.set(occurrenceId, [...rows, { tenant, triggerId, status: 'observed' }]);
    return true;
  }

  /** The rows this decision is the first for (AD-1); a tenant-less decision matches the id in any tenant. */
  decide(occurrenceId: string, tenant: string | null, status: Exclude<LedgerRow['status'], 'observed'>): LedgerRow[] {
    const first = (this.rows.get(occurrenceId) ?? []).filter(
      (r) => r.status === 'observed' && (tenant === null || r.tenant === tenant),
    );
    for (const row of first) row.status = status;
    return first;
  }
}
