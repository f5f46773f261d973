import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor } from '../sql-client.js';
import type {
  OccurrenceAdmitted,
  OccurrenceBatched,
  OccurrenceBlocked,
  OccurrenceObserved,
  OccurrenceSuppressed,
} from '../../domain/occurrence/occurrence-events.js';
import type { OccurrenceLedger } from './occurrence-ledger.js';

type OccurrenceEvent = RecordedEvent<
  | OccurrenceObserved['data']
  | OccurrenceAdmitted['data']
  | OccurrenceBlocked['data']
  | OccurrenceSuppressed['data']
  | OccurrenceBatched['data']
>;

interface Touch {
  /** Index in the run (log order): the latest touching event sets last_position, as one by one. */
  order: number;
  position: number;
}

interface TriggerTotals {
  tenant: string;
  triggerId: string;
  observed: number;
  admitted: number;
  blocked: Record<string, number>;
  suppressed: Record<string, number>;
  /** BA-1: members decided `batched`, and the executions their batches admitted. */
  batched: number;
  batchExecutions: number;
  coalesced: Record<string, number>;
  /** SU-1: delivered to a wait-for subscription. */
  subscribed: number;
  fireAtMs: number | null;
  fireAt: string | null;
  last: Touch;
}

const key = (tenant: string, triggerId: string) => `${tenant}\u0000${triggerId}`;

/**
 * Four statements instead of several per event, leaving exactly the rows folding one by one would (the replay,
 * crash and rebuild tests compare both).
 */
export async function foldOccurrenceRun(
  tx: SqlExecutor,
  run: readonly RecordedEvent[],
  ledger: OccurrenceLedger,
): Promise<void> {
  if (run.length === 0) return;
  const events = run as OccurrenceEvent[];
  const observed = events
    .map((e, order) => ({ e: e as RecordedEvent<OccurrenceObserved['data']>, order }))
    .filter(({ e }) => e.type === 'OccurrenceObserved');
  const totals = new Map<string, TriggerTotals>();
  const totalsOf = (tenant: string, triggerId: string) => {
    const k = key(tenant, triggerId);
    let t = totals.get(k);
    if (!t)
      totals.set(
        k,
        (t = {
          tenant,
          triggerId,
          observed: 0,
          admitted: 0,
          blocked: {},
          suppressed: {},
          batched: 0,
          batchExecutions: 0,
          coalesced: {},
          subscribed: 0,
          fireAtMs: null,
          fireAt: null,
          last: { order: -1, position: 0 },
        }),
      );
    return t;
  };
  const touch = (t: TriggerTotals, order: number, position: number) => {
    if (order > t.last.order) t.last = { order, position };
  };

  // In log order, so each event finds its Occurrence where the events before it left it.
  const decided: Array<{
    tenant: string;
    triggerId: string;
    occurrenceId: string;
    status: string;
    reason: string | null;
  }> = [];
  for (const [order, e] of events.entries()) {
    if (e.type === 'OccurrenceObserved') {
      const o = e.data as OccurrenceObserved['data'];
      if (!ledger.observe(o.tenant, o.occurrenceId, o.triggerId)) continue;
      const t = totalsOf(o.tenant, o.triggerId);
      t.observed += 1;
      touch(t, order, e.position);
      continue;
    }
    const status =
      e.type === 'OccurrenceAdmitted'
        ? 'admitted'
        : e.type === 'OccurrenceSuppressed'
          ? 'suppressed'
          : e.type === 'OccurrenceBatched'
            ? 'batched'
            : e.type === 'OccurrenceCoalesced'
              ? 'coalesced'
              : e.type === 'OccurrenceSubscribed'
                ? 'subscribed'
                : 'blocked';
    for (const row of ledger.decide(e.data.occurrenceId, (e.metadata.tenant as string | undefined) ?? null, status)) {
      const t = totalsOf(row.tenant, row.triggerId);
      touch(t, order, e.position);
      let reason: string | null = null;
      if (e.type === 'OccurrenceSubscribed') {
        t.subscribed += 1;
      } else if (e.type === 'OccurrenceBatched') {
        t.batched += 1;
        if ((e.data as OccurrenceBatched['data']).request) t.batchExecutions += 1;
      } else if (e.type === 'OccurrenceAdmitted') {
        const firedAt = (e.data as OccurrenceAdmitted['data']).firedAt;
        t.admitted += 1;
        if (t.fireAtMs === null || Date.parse(firedAt) > t.fireAtMs)
          [t.fireAtMs, t.fireAt] = [Date.parse(firedAt), firedAt];
      } else {
        reason = (e.data as OccurrenceBlocked['data'] | OccurrenceSuppressed['data']).reason;
        const byReason = status === 'suppressed' ? t.suppressed : status === 'coalesced' ? t.coalesced : t.blocked;
        byReason[reason] = (byReason[reason] ?? 0) + 1;
      }
      decided.push({ tenant: row.tenant, triggerId: row.triggerId, occurrenceId: e.data.occurrenceId, status, reason });
    }
  }

  const all = [...totals.values()];
  const counted = all.filter((t) => t.observed > 0);
  if (counted.length > 0) {
    // A first claim creates the row if its Trigger's revision has not been folded yet.
    await tx.query(
      `INSERT INTO rm_trigger_health AS h (tenant, trigger_id, observed, last_position)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
       ON CONFLICT (tenant, trigger_id) DO UPDATE SET observed = h.observed + EXCLUDED.observed, last_position = EXCLUDED.last_position`,
      [
        counted.map((t) => t.tenant),
        counted.map((t) => t.triggerId),
        counted.map((t) => t.observed),
        counted.map((t) => t.last.position),
      ],
    );
  }
  const withDecisions = all.filter(
    (t) =>
      t.admitted > 0 ||
      t.batched > 0 ||
      t.subscribed > 0 ||
      Object.keys(t.blocked).length > 0 ||
      Object.keys(t.suppressed).length > 0 ||
      Object.keys(t.coalesced).length > 0,
  );
  if (withDecisions.length > 0) {
    await tx.query(
      `UPDATE rm_trigger_health h SET admitted = h.admitted + u.admitted,
              blocked = h.blocked || COALESCE((SELECT jsonb_object_agg(b.key, to_jsonb(COALESCE((h.blocked ->> b.key)::int, 0) + b.value::int))
                                                 FROM jsonb_each_text(u.blocked) b), '{}'::jsonb),
              suppressed = h.suppressed || COALESCE((SELECT jsonb_object_agg(b.key, to_jsonb(COALESCE((h.suppressed ->> b.key)::int, 0) + b.value::int))
                                                 FROM jsonb_each_text(u.suppressed) b), '{}'::jsonb),
              coalesced = h.coalesced || COALESCE((SELECT jsonb_object_agg(b.key, to_jsonb(COALESCE((h.coalesced ->> b.key)::int, 0) + b.value::int))
                                                 FROM jsonb_each_text(u.coalesced) b), '{}'::jsonb),
              last_fire_at = GREATEST(h.last_fire_at, date_trunc('milliseconds', u.fire_at)),
              batched = h.batched + u.batched, batch_executions = h.batch_executions + u.batch_executions,
              subscribed = h.subscribed + u.subscribed, last_position = u.last_position
         FROM unnest($1::text[], $2::text[], $3::int[], $4::jsonb[], $5::timestamptz[], $6::bigint[], $7::jsonb[], $8::int[], $9::int[], $10::jsonb[], $11::int[])
           AS u(tenant, trigger_id, admitted, blocked, fire_at, last_position, suppressed, batched, batch_executions, coalesced, subscribed)
        WHERE h.tenant = u.tenant AND h.trigger_id = u.trigger_id`,
      [
        withDecisions.map((t) => t.tenant),
        withDecisions.map((t) => t.triggerId),
        withDecisions.map((t) => t.admitted),
        withDecisions.map((t) => JSON.stringify(t.blocked)),
        withDecisions.map((t) => t.fireAt),
        withDecisions.map((t) => t.last.position),
        withDecisions.map((t) => JSON.stringify(t.suppressed)),
        withDecisions.map((t) => t.batched),
        withDecisions.map((t) => t.batchExecutions),
        withDecisions.map((t) => JSON.stringify(t.coalesced)),
        withDecisions.map((t) => t.subscribed),
      ],
    );
  }
  if (observed.length > 0) {
    await tx.query(
      `UPDATE rm_trigger_health h SET last_occurrence_id = c.occurrence_id, last_status = 'observed', last_reason = NULL, last_observed_at = c.at
         FROM (SELECT DISTINCT ON (tenant, trigger_id) tenant, trigger_id, occurrence_id, date_trunc('milliseconds', observed_at) AS at
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS i(tenant, trigger_id, occurrence_id, observed_at)
                ORDER BY tenant, trigger_id, at DESC, occurrence_id DESC) c
        WHERE h.tenant = c.tenant AND h.trigger_id = c.trigger_id
          AND (h.last_observed_at IS NULL OR (h.last_observed_at, h.last_occurrence_id) < (c.at, c.occurrence_id))`,
      [
        observed.map(({ e }) => e.data.tenant),
        observed.map(({ e }) => e.data.triggerId),
        observed.map(({ e }) => e.data.occurrenceId),
        observed.map(({ e }) => e.data.observedAt),
      ],
    );
  }
  if (decided.length > 0) {
    await tx.query(
      `UPDATE rm_trigger_health h SET last_status = d.status, last_reason = CASE WHEN d.status IN ('blocked', 'suppressed', 'coalesced') THEN d.reason ELSE h.last_reason END
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS d(tenant, trigger_id, occurrence_id, status, reason)
        WHERE h.tenant = d.tenant AND h.trigger_id = d.trigger_id AND h.last_occurrence_id = d.occurrence_id`,
      [
        decided.map((d) => d.tenant),
        decided.map((d) => d.triggerId),
        decided.map((d) => d.occurrenceId),
        decided.map((d) => d.status),
        decided.map((d) => d.reason),
      ],
    );
  }
}
