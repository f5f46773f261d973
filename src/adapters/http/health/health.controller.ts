import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { Public } from '../auth/auth.decorators.js';
import { Answer } from '../openapi/decorators.js';
import { readiness } from '../openapi/answer-schemas.js';
import { Problem } from '../problems/problem.js';
import { SubscriptionRegistry } from '../../runner/subscription-registry.js';
import { WakeupDispatcher } from '../../wakeup/wakeup.dispatcher.js';
import { StartupReadiness } from '../../runner/startup-readiness.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';

/**
 * Liveness says the process answers; readiness says it can do its work: store reachable, background work running
 * and caught up to the log as it was at start (503 until then, OP-4); each read model's lag behind the log is
 * reported. A degraded part (e.g. the wakeup transport) keeps it ready, with the part named.
 */
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
    private readonly startup: StartupReadiness,
    private readonly runners: ProjectionRunners,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([async () => this.indicators.check('process').up({ pid: process.pid })]);
  }

  @Answer(200, readiness, 'ready: ok, or degraded with the part named')
  @Get('ready')
  @HealthCheck()
  async ready() {
    try {
      return await this.checkReady();
    } catch (error) {
      throw notReady(error);
    }
  }

  private checkReady() {
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
        const background = this.indicators.check('background');
        try {
          const state = await this.startup.check();
          return state.ready
            ? background.up()
            : background.down({ reason: state.reason, waitingFor: state.waitingFor });
        } catch (error) {
          return background.down({ reason: (error as Error).message });
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
        // Reported, never a reason to leave rotation: only the catch-up at start is (StartupReadiness).
        const projections = this.indicators.check('projections');
        try {
          return projections.up({ lagEvents: Object.fromEntries(await this.runners.lag()) });
        } catch (error) {
          return projections.degraded({ message: (error as Error).message });
        }
      },
      async () => {
        const wakeups = this.indicators.check('wakeups');
        const { status, ...details } = await this.wakeups.health();
        return status === 'up' ? wakeups.up(details) : wakeups.degraded(details);
      },
    ]);
  }
}

/** Terminus' 503 as a problem (code `not_ready`) that keeps its members, so the reason reaches the operator. */
function notReady(error: unknown): unknown {
  if (!(error instanceof ServiceUnavailableException)) return error;
  const response = error.getResponse() as {
    status?: unknown;
    error?: Record<string, { reason?: string; message?: string }>;
  };
  // Terminus' own `status: "error"` would replace the problem's numeric status (RFC 9457).
  const { status: _terminusStatus, ...result } = response;
  const parts = Object.entries(result.error ?? {}).map(([name, part]) => {
    const why = part.reason ?? part.message;
    return why ? `${name}: ${why}` : name;
  });
  return new Problem(503, 'not_ready', 'Not ready', `Not ready: ${parts.join('; ')}.`, result, { 'retry-after': '1' });
}
