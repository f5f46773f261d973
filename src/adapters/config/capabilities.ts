import { CAPABILITIES } from '../../domain/trigger/trigger-authority.js';

/**
 * CP-1: a capability is claimed only once every rule behind it is implemented, never before; a Trigger entry
 * needing any other is refused with 422 `capability_unsupported`. Not claimed today:
 * coalescing, causality (no causal link is recorded yet, so depth and loop limits could
 * never act), subscriptions, and dedupe windows other than the default (identities are kept for good).
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
  // BA-1: batch streams per (Trigger revision, partition), closed by size at admission or by the database-clock
  // closer (src/adapters/batches) at maxWaitMs; one execution per closed batch, members `batched`.
  CAPABILITIES.batching,
];
