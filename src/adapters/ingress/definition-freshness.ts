import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { ProjectionRunner } from '../../projections/runner/projection-runner.js';
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

/**
 * Definitions take effect at once in the process that wrote them (WH-3, WH-7). A Trigger write answers before
 * the source-bindings read model has folded it (on PostgreSQL the fold runs in the background thread), so a
 * delivery right after it would be mapped to nothing and acknowledged as ignored: lost. This process remembers the
 * position of every binding-changing append it made until it has seen the read model's checkpoint pass it; a
 * delivery that starts while one is unconfirmed waits for it (bounded) and otherwise answers 503, never a 202
 * that drops it. The common case (nothing unconfirmed) costs no round trip. A source or key change drops the
 * source cache at once, so the next delivery verifies with the keys as written.
 *
 * Other processes learn of a change within the caches' TTL (1 s) and their own fold; admission re-checks the
 * Trigger revision and the key (AD-2).
 */
@Injectable()
export class DefinitionFreshness {
  private readonly logger = new Logger('DefinitionFreshness');
  /** Positions of binding-changing appends this process made and has not yet seen folded. */
  private readonly unfolded = new Set<number>();
  private sweeping: Promise<void> | null = null;
  private readonly runner: ProjectionRunner | undefined;
  private wakeFolded: Array<() => void> = [];

  constructor(
    signal: AppendSignal,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly bindings: TriggerBindings,
    private readonly sources: SourceCache,
    @Optional() runners?: ProjectionRunners,
  ) {
    this.runner = runners?.runners.get(SOURCE_BINDINGS_PROJECTION);
    signal.onNotify((types, position) => {
      if (!types) return;
      if (types.some((type) => SOURCE_EVENTS.includes(type))) this.sources.forgetAll();
      if (position === undefined || !this.runner || !types.some((type) => BINDING_EVENTS.includes(type))) return;
      this.unfolded.add(position);
      // Where no fold happens here (REVEILLE_BACKGROUND=off) and no delivery comes, the marks still get checked.
      if (this.unfolded.size >= SWEEP_AT) void this.sweep();
    });
    // A fold made here (or reported by the background thread) is the moment to look again.
    this.runner?.onFolded(() => {
      this.wakeFolded.splice(0).forEach((wake) => wake());
      if (this.unfolded.size > 0) void this.sweep();
    });
  }

  /** Taken when a delivery starts: the writes it must see mapped. Empty on the hot path. */
  pending(): number[] {
    return this.unfolded.size === 0 ? [] : [...this.unfolded];
  }

  /** Whether the read model holds every one of `positions`, waiting at most MAX_WAIT_MS. */
  async folded(positions: readonly number[]): Promise<boolean> {
    if (positions.length === 0) return true;
    const deadline = performance.now() + MAX_WAIT_MS;
    for (;;) {
      await this.sweep();
      if (positions.every((position) => !this.unfolded.has(position))) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      // Woken by a fold here; polled for a fold another process made.
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakeFolded = this.wakeFolded.filter((other) => other !== wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(POLL_MS, left));
        this.wakeFolded.push(wake);
      });
    }
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
