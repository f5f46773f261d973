import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyStore } from './idempotency.store.js';

const SWEEP_EVERY_MS = 15 * 60 * 1000;

/** A swept manual-fire key cannot make a replay a second occurrence: its identity lives on in the stream (SEC-3). */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(IdempotencyStore) private readonly keys: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.keys.sweep().then(
        (n) => n > 0 && this.logger.log(`swept ${n} expired idempotency keys`),
        (error: Error) => this.logger.warn(`sweep failed: ${error.message}`),
      );
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
