import { correlationAt } from '../../domain/causality/correlation.js';
import type { CorrelationReserved } from '../../domain/causality/correlation-events.js';
import { rootLink, unknownLink } from '../../domain/causality/causal-link.js';
import type { CausalLink, OccurrenceAuth } from '../../domain/occurrence/occurrence-events.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { correlationStream } from '../../domain/shared/ids.js';

/** What the ingress knows of a delivery once its signature was checked. */
export interface CorrelatedDelivery {
  tenant: string;
  sourceId: string;
  correlationPointer: string | null;
  authState: OccurrenceAuth['state'];
  payload: unknown;
}

/**
 * CA-2: the causal link of a delivery, decided at acceptance and recorded in its `OccurrenceObserved` (so a replay
 * never decides it again). Only the value at the source's own `correlationPointer` is read, never an id the payload
 * names; only a *verified* delivery may link; and the key is looked up in its correlation stream, read from the log,
 * so an Operation answered before the delivery arrived is always found (no read model lag to race).
 * No value: a root. A value that is untrusted, unusable as a key (empty, over-long, not a string or number) or names
 * no Operation of this source: `unknown`, never invented.
 */
export async function correlatedLink(store: EventStore, delivery: CorrelatedDelivery): Promise<CausalLink> {
  const read = correlationAt(delivery.correlationPointer, delivery.payload);
  if (read.kind === 'absent') return rootLink();
  // A value that is there but can name no Operation is a correlation nobody can verify: `unknown`, not a root.
  if (read.kind === 'unusable' || delivery.authState !== 'verified') return unknownLink();
  const { key } = read;
  // One event at most, and the read joins the store's batched reads (no maxCount), as every hot-path read does.
  const [reserved] = await store.readStream(correlationStream(delivery.tenant, delivery.sourceId, key));
  if (reserved?.type !== 'CorrelationReserved') return unknownLink();
  const data = reserved.data as CorrelationReserved['data'];
  // The stream name is a hash of exactly these; checked anyway so a collision could never cross tenants.
  if (data.tenant !== delivery.tenant || data.sourceId !== delivery.sourceId || data.key !== key) return unknownLink();
  return data.child;
}
