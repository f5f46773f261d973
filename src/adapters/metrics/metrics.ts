import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { totalsByKind } from '../../projections/metrics/metrics.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { WakeupDispatcher } from '../wakeup/wakeup.dispatcher.js';

const EXECUTION_STATUSES = ['pending', 'claimed', 'retrying', 'dead'] as const;

/**
 * OP-4: Prometheus metrics of this process (api.md, System). Labels never hold a tenant or a resource id: HTTP
 * routes are their templates, Occurrences are counted by kind and status. What the log already counts (Occurrences,
 * executions, lag) is read at scrape time from the read models, so every process reports the same totals and the
 * background thread needs no forwarding; what only happens in memory (HTTP, ingress answers, fire delays) is
 * counted where it happens, the background thread's fire delays sent over to this registry.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private readonly fireDelayListeners: Array<(seconds: readonly number[]) => void> = [];
  private readonly ingress: Counter<'status'>;
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly fireDelay: Histogram;

  constructor(@Inject(SQL_CLIENT) sql: SqlClient, runners: ProjectionRunners, wakeups: WakeupDispatcher) {
    const registers = [this.registry];
    this.ingress = new Counter({
      name: 'reveille_ingress_requests_total',
      help: 'Webhook deliveries answered, by HTTP status.',
      labelNames: ['status'],
      registers,
    });
    this.http = new Histogram({
      name: 'reveille_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.fireDelay = new Histogram({
      name: 'reveille_schedule_fire_delay_seconds',
      help: 'How long after its instant a schedule Occurrence was committed (database clock).',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    // Read once per scrape, shared by the two families it feeds.
    let totals: Promise<Awaited<ReturnType<typeof totalsByKind>>> | null = null;
    const readTotals = () => (totals ??= totalsByKind(sql).finally(() => setImmediate(() => (totals = null))));
    const logger = this.logger;
    new Counter({
      name: 'reveille_occurrences_total',
      help: 'Occurrences observed, and decided admitted or blocked, by kind (the Trigger type).',
      labelNames: ['kind', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const row of await readTotals().catch(failed(logger, []))) {
          this.inc({ kind: row.kind, status: 'observed' }, row.observed);
          this.inc({ kind: row.kind, status: 'admitted' }, row.admitted);
          this.inc({ kind: row.kind, status: 'blocked' }, row.blocked);
        }
      },
    });
    new Gauge({
      name: 'reveille_executions',
      help: 'Executions by status now.',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        const rows = await readTotals().catch(failed(logger, []));
        for (const status of EXECUTION_STATUSES)
          this.set(
            { status },
            rows.reduce((sum, row) => sum + row.executions[status], 0),
          );
      },
    });
    new Gauge({
      name: 'reveille_projection_lag_events',
      help: 'How far each read model trails the head of the log (positions).',
      labelNames: ['projection'],
      registers,
      async collect() {
        this.reset();
        try {
          for (const [projection, lag] of await runners.lag()) this.set({ projection }, lag);
        } catch (error) {
          failed(logger, undefined)(error);
        }
      },
    });
    new Gauge({
      name: 'reveille_wakeup_lag_seconds',
      help: 'Age of the oldest event the wakeup dispatcher has not sent yet (0 with the in-process transport).',
      registers,
      async collect() {
        this.set(await wakeups.lagSeconds().catch(failed(logger, 0)));
      },
    });
  }

  ingressAnswered(status: number): void {
    this.ingress.inc({ status: String(status) });
  }

  httpAnswered(method: string, route: string, status: number, seconds: number): void {
    this.http.observe({ method, route, status: String(status) }, seconds);
  }

  /** Recorded here, and handed to listeners (the background thread sends them to the HTTP thread's registry). */
  fireDelays(seconds: readonly number[]): void {
    for (const delay of seconds) this.fireDelay.observe(Math.max(0, delay));
    if (seconds.length > 0) this.fireDelayListeners.forEach((listener) => listener(seconds));
  }

  onFireDelays(listener: (seconds: readonly number[]) => void): void {
    this.fireDelayListeners.push(listener);
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** A scrape never fails for one family: the store being down is what readiness reports. */
function failed<T>(logger: Logger, fallback: T): (error: unknown) => T {
  return (error) => {
    logger.warn(`metrics: ${(error as Error).message}`);
    return fallback;
  };
}
