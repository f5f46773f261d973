import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type Wakeup, WAKEUP_EVENT_TYPES, wakeupOf } from '../../domain/execution/wakeup.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import {
  advanceCheckpoint,
  advanceCheckpointSoon,
  CheckpointConflict,
  loadCheckpoint,
} from '../../projections/runner/checkpoints.js';
import { Subscription } from '../../projections/runner/subscription.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { InProcessWakeups } from './in-process-wakeups.js';
import { RedisWakeupStream } from './redis-wakeup-stream.js';

export const WAKEUP_DISPATCHER = 'dispatcher:wakeups';
const ERROR_LOG_INTERVAL_MS = 10_000;

export interface WakeupTransportHealth {
  status: 'up' | 'degraded';
  transport: 'redis' | 'in-process';
  stream?: string;
  /** Log positions past the dispatcher's checkpoint: events not yet handed to Redis (on PostgreSQL, a count). */
  behind?: number;
  error?: string;
}

/**
 * EX-1, decision 2 (docs/architecture.md): wakeups follow the log. With Redis the checkpoint advances only after
 * Redis confirmed the batch, so a crash or an outage re-sends from it (duplicates are harmless: the claim fence).
 */
@Injectable()
export class WakeupDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger('Wakeups');
  readonly subscription: Subscription;
  private readonly redis: RedisWakeupStream | null;
  /** Without Redis nobody reads old wakeups: start at the head, keep the position in memory. */
  private memoryCheckpoint: number | null = null;
  /** Retried batches notify this process's waiters once. */
  private notifiedUpTo = 0;
  private lastLogged = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    signal: AppendSignal,
    registry: SubscriptionRegistry,
    @Inject(CONFIG) config: ReveilleConfig,
    private readonly wakeups: InProcessWakeups,
  ) {
    const { redisUrl, stream, maxLen } = config.wakeups;
    this.redis = redisUrl ? new RedisWakeupStream(redisUrl, stream, maxLen, (error) => this.logError(error)) : null;
    this.subscription = new Subscription({
      name: WAKEUP_DISPATCHER,
      store,
      signal,
      idlePollMs: 100,
      batchSize: 500,
      checkpoint: () => this.checkpoint(),
      types: WAKEUP_EVENT_TYPES,
      omitData: [['request', 'input']],
      handle: async (events, from, to) => {
        const batch = events.flatMap((event) => {
          const wakeup = wakeupOf(event);
          return wakeup ? [{ wakeup, position: event.position }] : [];
        });
        this.notifyInProcess(batch);
        if (!this.redis) {
          this.memoryCheckpoint = to;
          return;
        }
        await this.redis.send(batch.map((b) => b.wakeup));
        // Losing the race to another dispatcher means it sent the same batch: read the checkpoint again.
        const advance = batch.length > 0 ? advanceCheckpoint : advanceCheckpointSoon;
        if (!(await advance(sql.unflushed ?? sql, WAKEUP_DISPATCHER, from, to)))
          throw new CheckpointConflict(WAKEUP_DISPATCHER);
      },
      onError: (error) => {
        if (!(error instanceof CheckpointConflict)) this.logError(error as Error);
      },
    });
    registry.register(this.subscription);
  }

  /** Readiness: a Redis outage degrades wakeups only; ingress and claims go on (the service stays ready). */
  async health(): Promise<WakeupTransportHealth> {
    if (!this.redis) return { status: 'up', transport: 'in-process' };
    const stream = this.redis.stream;
    let behind: number | undefined;
    try {
      behind = Math.max(0, (await this.store.headPosition()) - (await loadCheckpoint(this.sql, WAKEUP_DISPATCHER)));
      await this.redis.ping();
    } catch (error) {
      return { status: 'degraded', transport: 'redis', stream, behind, error: (error as Error).message };
    }
    const failing = this.subscription.error as Error | null;
    return failing
      ? { status: 'degraded', transport: 'redis', stream, behind, error: failing.message }
      : { status: 'up', transport: 'redis', stream, behind };
  }

  /** OP-4: how old the first event past the checkpoint is; the in-process transport sends as it folds (0). */
  async lagSeconds(): Promise<number> {
    if (!this.redis) return 0;
    const [next] = await this.store.readAll({ after: await loadCheckpoint(this.sql, WAKEUP_DISPATCHER), maxCount: 1 });
    if (!next) return 0;
    return Math.max(0, ((await this.store.now()).getTime() - Date.parse(next.recordedAt)) / 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription.stop();
    await this.redis?.close();
  }

  private async checkpoint(): Promise<number> {
    if (this.redis) return loadCheckpoint(this.sql, WAKEUP_DISPATCHER);
    return (this.memoryCheckpoint ??= await this.store.headPosition());
  }

  private notifyInProcess(batch: Array<{ wakeup: Wakeup; position: number }>): void {
    for (const { wakeup, position } of batch) {
      if (position <= this.notifiedUpTo) continue;
      this.wakeups.notify(wakeup, position);
      this.notifiedUpTo = position;
    }
  }

  /** ioredis reports every failed reconnect: one line per interval is enough. */
  private logError(error: Error): void {
    const now = Date.now();
    if (now - this.lastLogged < ERROR_LOG_INTERVAL_MS) return;
    this.lastLogged = now;
    this.logger.warn(`wakeup transport: ${error.message} (retrying; nothing is lost, the log is the outbox)`);
  }
}
