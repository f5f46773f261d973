import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { sweepReplayStore } from './replay-store.js';

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** DD-4: auth replay rows leave only after their horizon; expiry re-authenticates nothing. */
@Injectable()
export class ReplaySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReplayStore');
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      sweepReplayStore(this.sql).catch((error: Error) => this.logger.warn(`sweep failed: ${error.message}`));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
