import { randomUUID } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { SOURCE_BINDINGS_PROJECTION } from '../../projections/source-bindings/source-bindings.projection.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SourceCache } from './source-cache.js';
import { TriggerBindings } from './trigger-bindings.js';

/** The events the source-bindings read model folds: a delivery must not be mapped before they are in it. */
const BINDING_EVENTS: readonly string[] = ['TriggerRevised', 'TriggerDeleted'];
/** The events that change what SourceCache holds (scheme, limits, keys). */
const SOURCE_EVENTS: readonly string[] = ['SourceRevised', 'SourceKeyAdded', 'SourceKeyRetired'];
/** The read-your-writes bound of every read (api.md, minPosition). */
const MAX_WAIT_MS = 2_000;
const POLL_MS = 20;
const SWEEP_AT = 1_000;
/** Every `serve` on PostgreSQL listens on it from its HTTP thread: also how a command tells one is running. */
export const DEFINITIONS_TOPIC = 'definitions';
const TOPIC = DEFINITIONS_TOPIC;

/** What one process tells the others sharing its database, right after its append (LISTEN/NOTIFY). */
interface Told {
  from: string;
  /** A binding-changing append's position. */
  position?: number;
  /** A source or key changed. */
  sources?: boolean;
}

/**
 * Definitions take effect at once in the process that wrote them (WH-3, WH-7). A Trigger write answers before
 * the source-bindings read model has folded it (on PostgreSQL the fold runs in the background thread), so a
 * delivery right after it would be mapped to nothing and acknowledged as ignored: lost. This process remembers the
 * position of every binding-changing append it made until it has seen the read model's checkpoint pass it; a
 * delivery that starts while one is unconfirmed waits for it (bounded) and otherwise answers 503, never a 202
 * that drops it. The common case (nothing unconfirmed) costs no round trip. A source or key change drops the
 * source cache at once, so the next delivery verifies with the keys as written.
 *
 * Other processes sharing the PostgreSQL database hear of each change through LISTEN/NOTIFY, sent as the write
 * commits, before its answer leaves (DefinitionsAnnounced), and treated the same way; one that misses it (its
 * listener was disconnected) follows within the caches' TTL (1 s) and the fold. Admission re-checks the Trigger
 * revision and the key anyway (AD-2).
 */
@Injectable()
export class DefinitionFreshness implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DefinitionFreshness');
  /** Our own notifications come back to us too. */
  private readonly id = randomUUID();
  private stopListening: (() => Promise<void>) | null = null;
  /** Positions of binding-changing appends this process made and has not yet seen folded. */
  private readonly unfolded = new Set<number>();
  private sweeping: Promise<void> | null = null;
  private readonly runner: ProjectionRunner | undefined;
  private wakeFolded: Array<() => void> = [];
  /** Notifications to the other processes still being sent. */
  private readonly announcing = new Set<Promise<void>>();

  constructor(
    signal: AppendSignal,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly bindings: TriggerBindings,
    private readonly sources: SourceCache,
    @Optional() runners?: ProjectionRunners,
  ) {
    this.runner = runners?.runners.get(SOURCE_BINDINGS_PROJECTION);
    signal.onNotify((types, position) => {
      if (!types) return;
      const sources = types.some((type) => SOURCE_EVENTS.includes(type));
      const binding = position !== undefined && types.some((type) => BINDING_EVENTS.includes(type));
      if (!sources && !binding) return;
      const told: Told = { from: this.id, ...(binding ? { position } : {}), ...(sources ? { sources } : {}) };
      this.heard(told);
      this.tell(told);
    });
    // A fold made here (or reported by the background thread) is the moment to look again.
    this.runner?.onFolded(() => {
      this.wakeFolded.splice(0).forEach((wake) => wake());
      if (this.unfolded.size > 0) void this.sweep();
    });
  }

  /** The HTTP thread listens; a background thread serves no deliveries. */
  onApplicationBootstrap(): void {
    if (!isMainThread || !this.sql.notifications) return;
    this.stopListening = this.sql.notifications.listen(TOPIC, (payload) => {
      const told = parseTold(payload);
      if (told && told.from !== this.id) this.heard(told);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopListening?.();
  }

  private heard(told: Told): void {
    if (told.sources) this.sources.forgetAll();
    if (told.position === undefined || !this.runner) return;
    this.unfolded.add(told.position);
    // Where no fold happens here (REVEILLE_BACKGROUND=off) and no delivery comes, the marks still get checked.
    if (this.unfolded.size >= SWEEP_AT) void this.sweep();
  }

  /** Sent before the write answers (DefinitionsAnnounced); a process that misses it follows within the caches' TTL. */
  private tell(told: Told): void {
    if (!isMainThread || !this.sql.notifications) return;
    const sent = this.sql.notifications
      .notify(TOPIC, JSON.stringify(told))
      .catch((error: unknown) => this.logger.warn(`definition change not announced: ${(error as Error).message}`));
    this.announcing.add(sent);
    void sent.finally(() => this.announcing.delete(sent));
  }

  /**
   * Once every change made so far has been announced to the other processes: a write answers after this, so a
   * client that delivers to another process the instant it has the answer finds that process told already (WH-7).
   * Sent otherwise alongside the answer, it lost that race under load now and then. Null when nothing is being sent.
   */
  announced(): Promise<unknown> | null {
    return this.announcing.size === 0 ? null : Promise.all(this.announcing);
  }

  /** Taken when a delivery starts: the writes it must see mapped. Empty on the hot path. */
  pending(): number[] {
    return this.unfolded.size === 0 ? [] : [...this.unfolded];
  }

  /** Whether the read model holds every one of `positions`, waiting at most MAX_WAIT_MS. */
  async folded(positions: readonly number[]): Promise<boolean> {
    if (positions.length === 0) return true;
    return this.within(MAX_WAIT_MS, async () => {
      await this.sweep();
      return positions.every((position) => !this.unfolded.has(position));
    });
  }

  /**
   * Whether the bindings read model has folded every event committed before this call, waiting at most
   * MAX_WAIT_MS. Asked only before a delivery is acknowledged as bound to nothing: a Trigger written through
   * another process whose announcement has not arrived yet leaves no mark here, but is below the head (WH-7).
   */
  async caughtUp(): Promise<boolean> {
    const runner = this.runner;
    if (!runner) return true;
    const head = await this.store.headPosition();
    if (head <= 0) return true;
    return this.within(MAX_WAIT_MS, () => runner.hasReached(head));
  }

  /** Asks `done` until it holds or `ms` have passed, woken by a fold here and polling for one elsewhere. */
  private async within(ms: number, done: () => Promise<boolean>): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      if (await done()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await this.foldOrPoll(left);
    }
  }

  private foldOrPoll(left: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeFolded = this.wakeFolded.filter((other) => other !== wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(POLL_MS, left));
      this.wakeFolded.push(wake);
    });
  }

  /** One pass at a time for every caller: the checkpoint once, then each unconfirmed position against it. */
  private sweep(): Promise<void> {
    this.sweeping ??= this.check().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async check(): Promise<void> {
    try {
      const checkpoint = await this.runner!.position();
      for (const position of [...this.unfolded].sort((a, b) => a - b)) {
        if (!(await this.store.isAtOrBefore(position, checkpoint))) continue;
        // Cached lookups may predate the fold when another process made it: dropped with the mark, in one step.
        this.unfolded.delete(position);
        this.bindings.forgetAll();
      }
    } catch (error) {
      this.logger.warn(`source-bindings checkpoint unreadable: ${(error as Error).message}`);
    }
  }
}

function parseTold(payload: string): Told | null {
  try {
    const told = JSON.parse(payload) as Partial<Told>;
    if (typeof told.from !== 'string') return null;
    const position = Number.isSafeInteger(told.position) && told.position! > 0 ? told.position : undefined;
    return { from: told.from, ...(position ? { position } : {}), ...(told.sources === true ? { sources: true } : {}) };
  } catch {
    return null;
  }
}
