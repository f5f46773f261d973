/** Which key a secret belongs to; bound into the ciphertext so a row cannot be moved to another key. */
export interface SecretOwner {
  tenant: string;
  sourceId: string;
  keyId: string;
}

/**
 * Where source secrets live: beside the log, never in it (ARCHITECTURE decision 7). Events name a
 * key id and generation; the sealed secret is written here first, so no event names a missing secret.
 */
export interface SourceSecrets {
  readonly cipher: { seal(owner: SecretOwner, secret: string): string };
  /** False when a row for this key already holds another generation. */
  put(owner: SecretOwner, generation: number, sealed: string): Promise<boolean>;
  remove(owner: SecretOwner): Promise<void>;
}
