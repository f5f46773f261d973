import { Inject, Injectable, Logger } from '@nestjs/common';
import { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { BATCHES_PROJECTION } from '../../projections/batches/batches.projection.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { BatchCloser } from './batch-closer.js';

/** BA-1: runs where the background tasks run, next to the read model of open batches; any number may run. */
@Injectable()
export class BatchCloserService {
  private readonly logger = new Logger('BatchCloser');
  readonly closer: BatchCloser;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
    runners: ProjectionRunners,
    registry: SubscriptionRegistry,
    notifier: DecisionNotifier,
  ) {
    this.closer = new BatchCloser({
      store,
      sql,
      maxIdleMs: config.deliveryPollMs,
      onClosed: (result) => result.decisions.forEach((decision) => notifier.decided(decision)),
      onError: (error) => this.logger.error(`batch closer: ${(error as Error).message}`),
    });
    // A fold may bring a deadline sooner than the sleep.
    runners.get(BATCHES_PROJECTION).onFolded(() => this.closer.poke());
    registry.register(this.closer);
  }
}
