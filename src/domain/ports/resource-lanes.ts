/** Whose turn it is on a resource lane: this execution's, after an older one, or not known yet. */
export type LaneTurn = { now: true } | { now: false; after: string | null };

/**
 * AD-5: the queues of resource lanes (`queueByPointer`), which hand out one execution at a time in acceptance order.
 * An explicit claim asks before it claims; `claim-next` reads its candidates from the same queues.
 */
export interface ResourceLanes {
  /**
   * `after`: the older execution of `lane` that has not ended (pending, claimed, or waiting to retry). `position` is
   * the log position of the execution's latest event: the queues answer once they hold the log that far; when they do
   * not catch up in time the turn is not known (`after: null`), and the claim waits rather than risk two at once.
   */
  turnOf(tenant: string, lane: string, executionId: string, position: number): Promise<LaneTurn>;
}
