import type { Migration } from '../../projections/migration.js';
import { eventStoreMigrations } from './sql/migrations.js';
import { idempotencyMigrations } from '../http/idempotency/idempotency.migrations.js';
import { ingressMigrations } from '../ingress/ingress.migrations.js';
import { sourcesMigrations } from '../sources/sources.migrations.js';
import { pollSecretsMigrations } from '../poll/poll-secrets.migrations.js';
import { projections } from '../../projections/index.js';

/**
 * The event log first, then what derives from it. Kept apart from the application's modules: `migrate`,
 * `audit verify` and `projections rebuild` need the schema without loading Nest (seconds of CPU per command).
 */
export function allMigrations(): Migration[] {
  return [
    ...eventStoreMigrations,
    ...idempotencyMigrations,
    ...sourcesMigrations,
    ...pollSecretsMigrations,
    ...ingressMigrations,
    ...projections.flatMap((p) => p.migrations),
  ];
}
