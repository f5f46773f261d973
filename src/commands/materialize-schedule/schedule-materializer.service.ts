import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../adapters/clock/clock.js';
import { AppendSignal } from '../../adapters/eventstore/append-signal.js';
import { EVENT_STORE, type EventStore } from '../../adapters/eventstore/event-store.port.js';
import { SQL_CLIENT, type SqlClient } from '../../adapters/eventstore/sql/sql-client.js';
import { SubscriptionRegistry } from '../../projections/runner/subscription-registry.js';
import { ScheduleMaterializer } from './schedule-materializer.js';

/**
 * The process's materializer, started and stopped with the other background work (and, like it,
 * driven by hand when tests disable autostart). Any number of processes may run one.
 */
@Injectable()
export class ScheduleMaterializerService {
  private readonly logger = new Logger('Scheduler');
  readonly materializer: ScheduleMaterializer;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(CLOCK) clock: Clock,
    signal: AppendSignal,
    registry: SubscriptionRegistry,
  ) {
    this.materializer = new ScheduleMaterializer({ store, sql, clock, signal, onError: (error) => this.logger.error(`materializer: ${(error as Error).message}`) });
    registry.register(this.materializer);
  }
}
