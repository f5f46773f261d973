import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { Public } from '../auth/auth.decorators.js';
import { SubscriptionRegistry } from '../../runner/subscription-registry.js';
import { WakeupDispatcher } from '../../wakeup/wakeup.dispatcher.js';

/** Liveness says the process answers; readiness says it can do its work (store reachable, lag bounded). */
@ApiTags('system')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly subscriptions: SubscriptionRegistry,
    private readonly wakeups: WakeupDispatcher,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([async () => this.indicators.check('process').up({ pid: process.pid })]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      async () => {
        const store = this.indicators.check('store');
        try {
          await this.store.ping();
          return store.up({ kind: this.store.kind });
        } catch (error) {
          return store.down({ kind: this.store.kind, message: (error as Error).message });
        }
      },
      async () => {
        const subscriptions = this.indicators.check('subscriptions');
        const failing = this.subscriptions.failing();
        return failing.length === 0
          ? subscriptions.up({ running: this.subscriptions.names() })
          : subscriptions.degraded({ failing });
      },
      async () => {
        const wakeups = this.indicators.check('wakeups');
        const { status, ...details } = await this.wakeups.health();
        return status === 'up' ? wakeups.up(details) : wakeups.degraded(details);
      },
    ]);
  }
}
