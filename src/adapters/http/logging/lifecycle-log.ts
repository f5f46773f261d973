import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

/** OP-4: the last line of a stopped service says why it stopped (a signal; closes without one are internal). */
@Injectable()
export class LifecycleLog implements OnApplicationShutdown {
  private readonly logger = new Logger('Reveille');

  onApplicationShutdown(signal?: string): void {
    if (signal) this.logger.log({ msg: 'shutting down', signal });
  }
}
