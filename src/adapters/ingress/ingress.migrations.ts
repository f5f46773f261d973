import type { Migration } from '../../projections/migration.js';

export const ingressMigrations: Migration[] = [
  {
    id: '0300_ingress',
    sql: `
      -- DD-2: authentication replay state, separate from business dedupe (the occurrence streams)
      CREATE TABLE IF NOT EXISTS auth_replay (
        tenant            text NOT NULL,
        source_id         text NOT NULL,
        delivery_id       text NOT NULL,
        signature_digest  text NOT NULL,
        first_seen        timestamptz NOT NULL DEFAULT now(),
        expires_at        timestamptz NOT NULL,
        PRIMARY KEY (tenant, source_id, delivery_id)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS auth_replay_signature ON auth_replay (tenant, source_id, signature_digest);
      CREATE INDEX IF NOT EXISTS auth_replay_expiry ON auth_replay (expires_at);
      -- WH-9: bounded, rate-limited metadata of rejected attempts, never bodies or signatures
      CREATE TABLE IF NOT EXISTS ingress_audit (
        id          bigserial PRIMARY KEY,
        source_id   text NOT NULL,
        reason      text NOT NULL,
        status      integer NOT NULL,
        size        integer,
        at          timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS ingress_audit_source ON ingress_audit (source_id, at)`,
  },
  {
    id: '0309_ingress_counts',
    sql: `
      -- Per-source delivery counts (accepted, duplicate, ignored, refused by reason), added once a second
      CREATE TABLE IF NOT EXISTS ingress_counts (
        source_id  text NOT NULL,
        outcome    text NOT NULL,
        reason     text NOT NULL,
        count      bigint NOT NULL,
        last_at    timestamptz NOT NULL,
        PRIMARY KEY (source_id, outcome, reason)
      )`,
  },
];
