/** Bound into the ciphertext, so a row cannot be moved to another key. */
export interface SecretOwner {
  tenant: string;
  sourceId: string;
  keyId: string;
}

/** Beside the log, never in it (decision 7, docs/architecture.md); written first, so no event names a missing one. */
export interface SourceSecrets {
  readonly cipher: { seal(owner: SecretOwner, secret: string): string };
  /** False when a row for this key already holds another generation. */
  put(owner: SecretOwner, generation: number, sealed: string): Promise<boolean>;
  remove(owner: SecretOwner): Promise<void>;
}
