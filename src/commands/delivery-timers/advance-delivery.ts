import type { ExecutionEvent } from '../../domain/execution/index.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import { transitionExecution } from '../shared/execution-transition.js';

/** Who moved an execution by its timer, on every event a timer appends. */
export const DELIVERY_TIMERS_ACTOR = 'reveille:delivery-timers';

/**
 * EX-4: fires one execution's timer at the database's now (SC-6: never the host clock), so a due retry is
 * redelivered as a new generation and an unclaimed delivery is delivered again or dead-lettered, with the
 * Mission slot and overlap changes in the same append. Idempotent: early, twice, or after the execution moved
 * on, it appends nothing; any number of processes may fire the same timer, the compare-and-set on the
 * execution stream lets one decide.
 */
export async function advanceDelivery(
  store: EventStore,
  tenant: string,
  executionId: string,
): Promise<ExecutionEvent[]> {
  const at = (await store.now()).toISOString();
  try {
    const { events } = await transitionExecution(
      store,
      tenant,
      { type: 'AdvanceDelivery', executionId, at },
      {
        tenant,
        actor: DELIVERY_TIMERS_ACTOR,
        correlationId: `delivery:${executionId}:${at}`,
        causationId: executionId,
      },
    );
    return events;
  } catch (error) {
    // A read model row the log does not back (another tenant's id, a stream not there): nothing to advance.
    if (error instanceof CommandRejected && error.rejection.code === 'not_found') return [];
    throw error;
  }
}
