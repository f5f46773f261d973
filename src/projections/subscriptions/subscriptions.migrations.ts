import type { Migration } from '../migration.js';

/** SU-1: one row per wait-for subscription, from its registration to its match or deadline. */
export const subscriptionsMigrations: Migration[] = [
  {
    id: '0380_rm_subscriptions',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_subscriptions (
        tenant                text NOT NULL,
        execution_id          text NOT NULL,
        subscription_id       text NOT NULL,
        target_kind           text NOT NULL CHECK (target_kind IN ('trigger', 'source')),
        target_id             text NOT NULL,
        match                 jsonb NOT NULL,
        state                 text NOT NULL CHECK (state IN ('active', 'matched', 'timed_out')),
        deadline              timestamptz NOT NULL,
        registered_at         timestamptz NOT NULL,
        registered_position   bigint NOT NULL,
        matched_occurrence_id text,
        resolved_at           timestamptz,
        last_position         bigint NOT NULL,
        PRIMARY KEY (tenant, execution_id, subscription_id)
      );
      CREATE INDEX IF NOT EXISTS rm_subscriptions_due ON rm_subscriptions (deadline) WHERE state = 'active'`,
  },
];
