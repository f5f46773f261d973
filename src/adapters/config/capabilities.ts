import { CAPABILITIES } from '../../domain/trigger/trigger-authority.js';

/**
 * CP-1: a capability is claimed only once every rule behind it is implemented, never before; a Trigger entry
 * needing any other is refused with 422 `capability_unsupported`. Not claimed today: batching,
 * coalescing, causality (no causal link is recorded yet, so depth and loop limits could
 * never act) and subscriptions.
 */
export const CLAIMED_CAPABILITIES: readonly string[] = [
  CAPABILITIES.manual,
  CAPABILITIES.webhook,
  CAPABILITIES.schedule,
  // PO-1..PO-4: the http-json@1 connector, the poll loop (src/adapters/poll) and the operator's cursor.
  CAPABILITIES.poll,
  // BA-3 `overlap: skip` and AD-5 `queueByPointer` lanes act at admission for every claimed Trigger type.
  CAPABILITIES.overlap,
  // BA-2: evaluated at admission before every counter; false is `suppressed`, a fault `blocked`, both final.
  CAPABILITIES.guards,
  // AD-4: unchanged@1, relevant@1 and window@1, after the guard and before every counter; baselines are streams.
  CAPABILITIES.prefilters,
  // DD-4: a webhook or poll identity is reused (a new Occurrence, the next generation) only once its latest
  // Occurrence is decided and max(windowSeconds, the source's auth replay horizon) has passed by the database clock.
  CAPABILITIES.dedupeWindows,
];
