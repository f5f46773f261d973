import type { CompletionReceipt, KnownExecution } from './execution-state.js';

/** The completion a committed settlement lost to, beside its receipt: which attempt, how it ended, when. */
export type SettledCompletion = Omit<CompletionReceipt, 'receipt'>;

export type Settlement =
  { decision: 'committed'; receipt: unknown; completion: SettledCompletion } | { decision: 'noncommitted' };

/**
 * EX-3: what a settlement answers once decided (its own tombstone, or the completion it lost to). `receipt` is
 * exactly what the consumer completed with (null when it sent none), so a client can compare it with its own.
 */
export function settlementOf(state: KnownExecution): Settlement | null {
  if (state.status === 'completed') return committedTo(state.completion);
  if (state.status === 'noncommitted') return { decision: 'noncommitted' };
  if (state.status === 'retrying' || state.status === 'dead_lettered')
    return state.lastCompletion ? committedTo(state.lastCompletion) : { decision: 'noncommitted' };
  return null;
}

function committedTo({ receipt, ...completion }: CompletionReceipt): Settlement {
  return { decision: 'committed', receipt, completion };
}
