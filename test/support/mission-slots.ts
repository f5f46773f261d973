import { SLOT_STRIPES } from '../../src/domain/admission/index.js';
import type { EventStore } from '../../src/domain/ports/event-store.js';
import { concurrencyStripeStream } from '../../src/domain/shared/ids.js';

export interface SlotEvent {
  type: string;
  stripe: number;
  executionIds: string[];
  /** The Mission's slots held after this event, over every stripe. */
  running: number;
}

/** AD-2: a Mission's slot events over all its stripes, in log order, with the total each leaves. */
export async function missionSlotEvents(store: EventStore, tenant: string, missionId: string): Promise<SlotEvent[]> {
  const streams = await Promise.all(
    Array.from({ length: SLOT_STRIPES }, (_, k) => store.readStream(concurrencyStripeStream(tenant, missionId, k))),
  );
  const byStripe = new Map<number, number>();
  return streams
    .flatMap((events, stripe) => events.map((e) => ({ e, stripe })))
    .sort((a, b) => a.e.position - b.e.position)
    .map(({ e, stripe }) => {
      const data = e.data as { running: number; executionIds?: string[]; executionId?: string };
      byStripe.set(stripe, data.running);
      return {
        type: e.type,
        stripe,
        executionIds: data.executionIds ?? [data.executionId!],
        running: [...byStripe.values()].reduce((sum, n) => sum + n, 0),
      };
    });
}
