import type { Migration } from '../../projections/migration.js';

/**
 * Secrets live outside the log (decision 7, docs/architecture.md); a row no event names is a crash leftover and
 * ignored. `ingress_routes` maps `/v1/ingress/{sourceId}`, which names no tenant, to the tenant owning the id.
 */
export const sourcesMigrations: Migration[] = [
  {
    id: '0200_source_secrets_and_ingress_routes',
    sql: `
      CREATE TABLE IF NOT EXISTS source_secrets (
        tenant      text NOT NULL,
        source_id   text NOT NULL,
        key_id      text NOT NULL,
        generation  integer NOT NULL,
        ciphertext  text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, source_id, key_id)
      );
      CREATE TABLE IF NOT EXISTS ingress_routes (
        source_id   text PRIMARY KEY,
        tenant      text NOT NULL,
        claimed_at  timestamptz NOT NULL DEFAULT now()
      )`,
  },
];
