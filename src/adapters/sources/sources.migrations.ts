import type { Migration } from '../../projections/migration.js';

/**
 * Source secrets live outside the event log (ARCHITECTURE decision 7): `ciphertext` is
 * `enc:v1:…` (AES-256-GCM under a key derived from REVEILLE_SECRET_KEY) or `plain:…` when no key
 * is configured. A row whose key id no event names is ignored (a crash between the row and the
 * SourceKeyAdded event leaves one behind). `ingress_routes` maps the global ingress path
 * `/v1/ingress/{sourceId}`, which names no tenant, to the one tenant that owns that id.
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
