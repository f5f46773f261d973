import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SUBSCRIPTIONS_PROJECTION } from '../../projections/subscriptions/subscriptions.projection.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { SubscriptionTimers } from './subscription-timers.js';

/** Runs where the background tasks run, next to the read model it polls; any number of processes may run one. */
@Injectable()
export class SubscriptionTimersService {
  private readonly logger = new Logger('SubscriptionTimers');
  readonly timers: SubscriptionTimers;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
    runners: ProjectionRunners,
    registry: SubscriptionRegistry,
  ) {
    this.timers = new SubscriptionTimers({
      store,
      sql,
      // The same bound as the delivery timers: how long a new deadline may go unseen.
      maxIdleMs: config.deliveryPollMs,
      onError: (error) => this.logger.error(`subscription timers: ${(error as Error).message}`),
    });
    runners.get(SUBSCRIPTIONS_PROJECTION).onFolded(() => this.timers.poke());
    registry.register(this.timers);
  }
}
