import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { PENDING_EXECUTIONS_PROJECTION } from '../../projections/pending-executions/pending-executions.projection.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { DeliveryTimers } from './delivery-timers.js';

/**
 * Runs where the background tasks run (the HTTP process with REVEILLE_BACKGROUND=on, its worker thread with
 * `thread`), next to the read model it polls; any number of processes may run one.
 */
@Injectable()
export class DeliveryTimersService {
  private readonly logger = new Logger('DeliveryTimers');
  readonly timers: DeliveryTimers;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
    runners: ProjectionRunners,
    registry: SubscriptionRegistry,
  ) {
    this.timers = new DeliveryTimers({
      store,
      sql,
      maxIdleMs: config.deliveryPollMs,
      onError: (error) => this.logger.error(`delivery timers: ${(error as Error).message}`),
    });
    // A fold may bring a timer sooner than the sleep, or free the slot a past-due delivery waited for.
    runners.get(PENDING_EXECUTIONS_PROJECTION).onFolded(() => this.timers.poke());
    registry.register(this.timers);
  }
}
