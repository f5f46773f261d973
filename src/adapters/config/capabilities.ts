import { CAPABILITIES } from '../../domain/trigger/trigger-authority.js';

/**
 * CP-1: a capability is claimed only once every rule behind it is implemented, never before; a Trigger entry
 * needing any other is refused with 422 `capability_unsupported`. Every capability api.md names is implemented;
 * an operator may withhold some (`REVEILLE_WITHHELD_CAPABILITIES`, src/adapters/config/capabilities.section.ts).
 */
export const IMPLEMENTED_CAPABILITIES: readonly string[] = [
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
  // CA-1..CA-3: Operations and verified correlation link Occurrences (src/commands/causality); admission blocks
  // `causal_loop` and `causal_depth_exceeded` on the recorded ancestry; the lineage view reads rm_causal_lineage.
  CAPABILITIES.causality,
  // SU-1: registration by the claim holder, delivery before admission in acceptance (log) order, `subscribed`,
  // deadlines on the database clock that survive a restart, wakeups (test/subscriptions).
  CAPABILITIES.subscriptions,
  // DD-5: groups per Trigger, rule and resource decided inside admission, windows closed by the database-clock
  // timer (src/adapters/coalescing) or the next member, the last member by acceptance order admitted with `members`.
  CAPABILITIES.coalescing,
  // DD-4: a webhook or poll identity is reused (a new Occurrence, the next generation) only once its latest
  // Occurrence is decided and max(windowSeconds, the source's auth replay horizon) has passed by the database clock.
  CAPABILITIES.dedupeWindows,
  // BA-1: batch streams per (Trigger revision, partition), closed by size at admission or by the database-clock
  // closer (src/adapters/batches) at maxWaitMs; one execution per closed batch, members `batched`.
  CAPABILITIES.batching,
];
