import type { EventStore } from '../../domain/ports/event-store.js';
import { waitForStream } from '../../domain/shared/ids.js';
import { type SubscriptionEvent, waitForDecider } from '../../domain/subscription/index.js';
import { loadAggregate } from '../shared/aggregate.js';
import { accepted, appendOf, write } from '../shared/write-kernel.js';

export interface DueSubscription {
  tenant: string;
  targetKind: 'trigger' | 'source';
  targetId: string;
  executionId: string;
  subscriptionId: string;
}

/**
 * SU-1: a subscription whose deadline passed by the database clock (SC-6) resolves `timed_out`, appended at the
 * `waitfor-…` stream's revision read: a match committed first wins, and a second timer appends nothing.
 */
export function timeOutSubscription(store: EventStore, due: DueSubscription): Promise<SubscriptionEvent[]> {
  const streamId = waitForStream(due.tenant, due.targetKind, due.targetId);
  return write(store, async () => {
    const loaded = await loadAggregate(store, streamId, waitForDecider);
    const now = (await store.now()).toISOString();
    const events = accepted(
      waitForDecider.decide(
        { type: 'TimeOutSubscription', executionId: due.executionId, subscriptionId: due.subscriptionId, now },
        loaded.state,
      ),
    );
    const metadata = { tenant: due.tenant, actor: 'reveille:subscription-timers', causationId: due.executionId };
    return {
      appends: events.length === 0 ? [] : [appendOf(streamId, events, metadata, loaded)],
      answer: () => events,
    };
  });
}
