import type { RecordedEvent } from '../../domain/ports/event-store.js';
import {
  SUBSCRIPTION_EVENT_TYPES,
  type SubscriptionEvent,
  type SubscriptionMatched,
  type SubscriptionRegistered,
  type SubscriptionTimedOut,
} from '../../domain/subscription/subscription-events.js';
import { msSql } from '../occurrences/cursor.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import type { SqlQuery } from '../sql-client.js';
import { subscriptionsMigrations } from './subscriptions.migrations.js';

export const SUBSCRIPTIONS_PROJECTION = 'subscriptions';

const ROW = 'tenant = $1 AND execution_id = $2 AND subscription_id = $3';

/** SU-1, mirroring the domain's fold: registered once, then resolved once (a replay changes nothing). */
export function evolveSubscriptions(event: RecordedEvent): SqlQuery[] {
  const type = event.type as SubscriptionEvent['type'];
  switch (type) {
    case 'SubscriptionRegistered': {
      const d = (event as RecordedEvent<SubscriptionRegistered['data']>).data;
      return [
        {
          text: `INSERT INTO rm_subscriptions (tenant, execution_id, subscription_id, target_kind, target_id, match, state,
                   deadline, registered_at, registered_position, last_position)
                 VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'active', ${msSql('$7')}, ${msSql('$8')}, $9, $9)
                 ON CONFLICT (tenant, execution_id, subscription_id) DO NOTHING`,
          values: [
            d.tenant,
            d.execution.executionId,
            d.subscriptionId,
            d.target.kind,
            d.target.id,
            JSON.stringify(d.match),
            d.deadline,
            d.registeredAt,
            event.position,
          ],
        },
      ];
    }
    case 'SubscriptionMatched': {
      const d = (event as RecordedEvent<SubscriptionMatched['data']>).data;
      return [
        {
          text: `UPDATE rm_subscriptions SET state = 'matched', matched_occurrence_id = $4, resolved_at = ${msSql('$5')},
                   last_position = $6
                 WHERE ${ROW} AND state = 'active'`,
          values: [d.tenant, d.execution.executionId, d.subscriptionId, d.occurrenceId, d.matchedAt, event.position],
        },
      ];
    }
    case 'SubscriptionTimedOut': {
      const d = (event as RecordedEvent<SubscriptionTimedOut['data']>).data;
      return [
        {
          text: `UPDATE rm_subscriptions SET state = 'timed_out', resolved_at = ${msSql('$4')}, last_position = $5
                 WHERE ${ROW} AND state = 'active'`,
          values: [d.tenant, d.execution.executionId, d.subscriptionId, d.timedOutAt, event.position],
        },
      ];
    }
    default: {
      const _: never = type;
      return [];
    }
  }
}

/** SU-1 read model behind `GET /v1/executions/{executionId}/subscriptions` and the deadline timers. */
export const subscriptionsProjection: Projection = statementProjection({
  name: SUBSCRIPTIONS_PROJECTION,
  handles: SUBSCRIPTION_EVENT_TYPES,
  migrations: subscriptionsMigrations,
  tables: ['rm_subscriptions'],
  evolve: evolveSubscriptions,
});
