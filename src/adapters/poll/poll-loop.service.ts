import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STORE, POLL_SECRETS } from '../../commands/shared/tokens.js';
import type { PollSecrets } from '../../domain/ports/poll-secrets.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { HttpJsonConnector } from './http-json-connector.js';
import { PollLoop } from './poll-loop.js';

/** Runs where the background tasks run; any number of processes may run one (ownership is in `poll_due`). */
@Injectable()
export class PollLoopService {
  private readonly logger = new Logger('Poller');
  readonly loop: PollLoop;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    registry: SubscriptionRegistry,
    @Inject(POLL_SECRETS) secrets: PollSecrets,
  ) {
    this.loop = new PollLoop({
      store,
      sql,
      connector: new HttpJsonConnector(),
      secrets,
      onError: (error) => this.logger.error(`poller: ${(error as Error).message}`),
    });
    registry.register(this.loop);
  }
}
