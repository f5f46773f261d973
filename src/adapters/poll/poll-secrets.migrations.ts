import type { Migration } from '../../projections/migration.js';

/**
 * Poll Triggers' bearer secrets live outside the log (decision 7, docs/architecture.md), sealed with
 * REVEILLE_SECRET_KEY when set. A row per set (a new `secret_id` each time): the poll stream's last
 * `PollSecretSet` names the row in force; a row no event names is a crash leftover, pruned by a later set.
 */
export const pollSecretsMigrations: Migration[] = [
  {
    id: '0210_poll_secrets',
    sql: `
      CREATE TABLE IF NOT EXISTS poll_secrets (
        tenant      text NOT NULL,
        trigger_id  text NOT NULL,
        secret_id   text NOT NULL,
        ciphertext  text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, trigger_id, secret_id)
      )`,
  },
];
