import type { Migration } from './adapters/eventstore/sql/migrations.js';
import { eventStoreMigrations } from './adapters/eventstore/sql/migrations.js';
import { idempotencyMigrations } from './adapters/http/idempotency/idempotency.migrations.js';
import { ingressMigrations } from './adapters/ingress/ingress.migrations.js';
import { sourcesMigrations } from './adapters/sources/sources.migrations.js';
import { projections } from './projections/index.js';

/** Every schema change of the deployment, in order: the event log first, then what derives from it. */
export function allMigrations(): Migration[] {
  return [...eventStoreMigrations, ...idempotencyMigrations, ...sourcesMigrations, ...ingressMigrations, ...projections.flatMap((p) => p.migrations)];
}
