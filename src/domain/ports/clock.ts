/**
 * The database clock in production (SC-6, decision 5, docs/architecture.md): a host clock jump neither
 * duplicates nor skips an instant.
 */
export interface Clock {
  now(): Promise<Date>;
}
