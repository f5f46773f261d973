/** Bound into the ciphertext, so a row cannot be moved to another Trigger or read as another set. */
export interface PollSecretOwner {
  tenant: string;
  triggerId: string;
  secretId: string;
}

/**
 * A poll Trigger's bearer secrets, beside the log and never in it (decision 7, docs/architecture.md). A row is
 * written before the `PollSecretSet` that names it, so no event names a missing row; a row no event names is a
 * crash leftover, pruned by the next set.
 */
export interface PollSecrets {
  put(owner: PollSecretOwner, secret: string): Promise<void>;
  /** The secret, or null when the row is gone or does not open under the configured key. */
  open(owner: PollSecretOwner): Promise<string | null>;
  /**
   * After `keep` was recorded: drops the row it replaced (its event is history, so no writer still needs it) and
   * leftovers old enough that no writer can still be about to name them.
   */
  prune(keep: PollSecretOwner, replaced: string | null): Promise<void>;
  /**
   * After the Trigger's deletion, recorded at `deletedAt` (database clock): every row written until then goes. A
   * Trigger created again is a new life that never polls with them; its own secrets are written later and stay.
   */
  forget(trigger: { tenant: string; triggerId: string }, deletedAt: string): Promise<void>;
}
