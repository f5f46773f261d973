import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { foldingOf, projections } from '../../projections/index.js';
import { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { SubscriptionRegistry } from './subscription-registry.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';

const MAX_WAIT_MS = 2_000;
/**
 * Under load, read models trail the log by up to REVEILLE_PROJECTION_LINGER_MS for larger, cheaper batches; a
 * quiet log is folded at once. Longer lingers raise HTTP tail latency (BENCHMARKS.md, ingress: 100 ms pushed p99
 * at half rate to 33–48 ms).
 */
const LINGER_AFTER = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers "have you caught up to P?" (read-your-writes). */
@Injectable()
export class ProjectionRunners {
  private readonly logger = new Logger('Projections');
  readonly runners: Map<string, ProjectionRunner>;

  constructor(
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    signal: AppendSignal,
    registry: SubscriptionRegistry,
    @Inject(CONFIG) config: ReveilleConfig,
  ) {
    this.runners = new Map(
      projections.map((p) => [
        p.name,
        new ProjectionRunner(sql, store, p, {
          signal,
          idlePollMs: 100,
          lingerMs: p.foldsAtOnce ? 0 : config.lingerMs.projections,
          lingerAfter: LINGER_AFTER,
          onError: (error) => this.logger.error(`projection ${p.name}: ${(error as Error).message}`),
        }),
      ]),
    );
    this.runners.forEach((runner) => registry.register(runner.subscription));
  }

  get(name: string): ProjectionRunner {
    const runner = this.runners.get(foldingOf(name)?.name ?? name);
    if (!runner) throw new Error(`unknown projection ${name}`);
    return runner;
  }

  /** false: the caller answers `stale: true`. */
  async waitFor(name: string, position: number | undefined): Promise<boolean> {
    if (!position || position <= 0) return true;
    const runner = this.get(name);
    const deadline = Date.now() + MAX_WAIT_MS;
    for (;;) {
      if (await runner.hasReached(position)) return true;
      if (Date.now() >= deadline) return false;
      await sleep(20);
    }
  }

  /**
   * For reads folded straight from the log (definitions, an execution's streams): they are as fresh as the store,
   * so they wait only until P is in it, in the log's own order (false: the caller answers `stale: true`).
   */
  async waitForStore(position: number | undefined): Promise<boolean> {
    if (!position || position <= 0) return true;
    const deadline = Date.now() + MAX_WAIT_MS;
    for (;;) {
      const head = await this.store.headPosition();
      if (head > 0 && (await this.store.isAtOrBefore(position, head))) return true;
      if (Date.now() >= deadline) return false;
      await sleep(20);
    }
  }

  /** How many log positions each read model trails the head by (the /metrics gauge and /health/ready report it). */
  async lag(): Promise<Map<string, number>> {
    const head = await this.store.headPosition();
    const entries = [...this.runners].map(
      async ([name, runner]) => [name, Math.max(0, head - (await runner.position()))] as const,
    );
    return new Map(await Promise.all(entries));
  }

  /** Its own loops may be folding meanwhile (a service started). */
  async catchUpAll(): Promise<void> {
    for (const runner of this.runners.values()) await runner.catchUpAlongsideOthers();
  }
}
