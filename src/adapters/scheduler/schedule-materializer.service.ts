import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK } from '../../commands/shared/tokens.js';
import { type Clock } from '../../domain/ports/clock.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { ScheduleMaterializer } from './schedule-materializer.js';
import { Metrics } from '../metrics/metrics.js';

/** Any number of processes may run one. */
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
    metrics: Metrics,
  ) {
    this.materializer = new ScheduleMaterializer({
      store,
      sql,
      clock,
      signal,
      onError: (error) => this.logger.error(`materializer: ${(error as Error).message}`),
      // The pass's database now: how late each instant fired (OP-4).
      onCommitted: (fired, now) => metrics.fireDelays(fired.map((at) => (Date.parse(now) - Date.parse(at)) / 1000)),
    });
    registry.register(this.materializer);
  }
}
