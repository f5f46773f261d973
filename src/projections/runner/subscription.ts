import type { EventStore, FilteredPage, ReadAllOptions, RecordedEvent } from '../../domain/ports/event-store.js';
import type { AppendSignal } from './append-signal.js';
import { CheckpointConflict } from './checkpoints.js';

/** How stale an idle subscription's own idea of its checkpoint may grow before it reads the stored one again. */
const CHECKPOINT_RECHECK_MS = 1_000;

/**
 * The rest of the current period of the wall clock: the idle subscriptions of a thread look at the log together,
 * so one read of its tail serves them all and their checkpoint advances share one statement (checkpoints.ts).
 */
const alignedTo = (periodMs: number): number => periodMs - (Date.now() % periodMs);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How soon, and at most how often, a read that did not yet show an announced append of its types is retried. */
const HELD_BACK_RETRY_MS = { first: 5, most: 50 };
/** An announced append no read has shown for this long is left to the idle poll (it was rolled back, or is far). */
const HELD_BACK_GIVE_UP_MS = 5_000;
/** At most this long, at random, a runner that lost its checkpoint to another waits before it reads on. */
const RACE_LOST_PAUSE_MS = 50;

export interface SubscriptionOptions {
  name: string;
  store: EventStore;
  /** Where this subscription resumes; read before each batch so several runners stay consistent. */
  checkpoint: () => Promise<number>;
  /** `to` is the page's last position, which with `types` need not be among `events`. */
  handle: (events: RecordedEvent[], from: number, to: number) => Promise<void>;
  /** Only these event types are handed to `handle` (read so where the store can filter). */
  types?: readonly string[];
  /** With `types`: data paths `handle` never uses (payloads), not read where the store can leave them out. */
  omitData?: ReadAllOptions['omitData'];
  batchSize?: number;
  idlePollMs?: number;
  /** Under load, per-batch costs dominate: waiting after a partial batch lets one read serve many events. */
  lingerMs?: number;
  /** A smaller batch means little load, so the next event is handled as soon as it is appended. */
  lingerAfter?: number;
  signal?: AppendSignal;
  onError?: (error: unknown) => void;
}

/** The page after `after`: only `types` where given, filtered by the store where it can. */
export async function readPage(
  store: EventStore,
  after: number,
  options: { types?: readonly string[]; omitData?: ReadAllOptions['omitData']; maxCount: number; live?: boolean },
): Promise<FilteredPage> {
  const { types, omitData, maxCount, live } = options;
  if (types && store.readAllOf) return store.readAllOf(types, { after, maxCount, omitData, live });
  const events = await store.readAll({ after, maxCount, live });
  const wanted = types ? new Set(types) : null;
  return {
    events: wanted ? events.filter((e) => wanted.has(e.type)) : events,
    scanned: events.length,
    last: events[events.length - 1]?.position ?? null,
  };
}

/** Projections commit rows and checkpoint together; processors rely on idempotent appends and save it after. */
export class Subscription {
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  /** The checkpoint this subscription itself last recorded; saves reading it back before every batch. */
  private recorded: number | null = null;
  /** When the checkpoint was last read from its store (Date.now()). */
  private checkedAt = 0;

  /** With `types`, appends of other types do not wake it; the idle poll still passes them. */
  private readonly wakeTypes: ReadonlySet<string> | undefined;
  /** Passes of the running loop, failed ones included: the first one ends 'starting' (readiness, OP-4). */
  private passes = 0;

  /**
   * The latest append of its types this process announced, while no read has passed it yet. Announced after its
   * commit, it may still be held back from a read (rule 1: an older transaction anywhere is open, a fold of another
   * read model most often); its announcement is spent by then, and the idle poll would be the next look.
   */
  private announced: { position: number; at: number; retryMs: number } | null = null;

  constructor(private readonly options: SubscriptionOptions) {
    this.wakeTypes = options.types ? new Set(options.types) : undefined;
    options.signal?.onNotify((types, position) => {
      if (position === undefined || (this.announced && this.announced.position >= position)) return;
      if (this.wakeTypes && types && !types.some((type) => this.wakeTypes!.has(type))) return;
      this.announced = { position, at: Date.now(), retryMs: HELD_BACK_RETRY_MS.first };
    });
  }

  get name(): string {
    return this.options.name;
  }

  get error(): unknown {
    return this.lastError;
  }

  /** Started, and its loop has not yet finished a first pass (its connections and code are not proven yet). */
  get starting(): boolean {
    return this.running && this.passes === 0;
  }

  /** Whether its checkpoint has passed `position` (readiness: caught up to the head seen at start). */
  async hasReached(position: number): Promise<boolean> {
    return position <= 0 || this.options.store.isAtOrBefore(position, await this.options.checkpoint());
  }

  async runOnce(): Promise<number> {
    const from = this.recorded ?? (await this.readCheckpoint());
    const page = await this.read(from);
    if (page.last === null) {
      // Idle: re-read the checkpoint now and then, in case a rebuild or another runner moved it. Not on every idle
      // poll: that was one query per subscription per poll. A stale checkpoint is safe meanwhile, because every
      // advance is a compare-and-set from it (a conflict forgets it at once). Kept when just read, or an idle
      // subscription that had not yet handled a page read its checkpoint on every poll.
      this.recorded = Date.now() - this.checkedAt >= CHECKPOINT_RECHECK_MS ? null : from;
      return 0;
    }
    try {
      await this.options.handle(page.events, from, page.last);
    } catch (error) {
      // Another runner (or a rebuild) may have moved the checkpoint: read it again next time.
      this.recorded = null;
      throw error;
    }
    this.recorded = page.last;
    return page.scanned;
  }

  private read(after: number): Promise<FilteredPage> {
    const { store, types, omitData, batchSize } = this.options;
    return readPage(store, after, { types, omitData, maxCount: batchSize ?? 500, live: true });
  }

  private async readCheckpoint(): Promise<number> {
    this.checkedAt = Date.now();
    return this.options.checkpoint();
  }

  /** After the checkpoint was reset from outside. */
  forgetCheckpoint(): void {
    this.recorded = null;
  }

  /** An empty page is not the end: events wait behind older open transactions (decision 3, docs/architecture.md). */
  async catchUp(onBatch?: (handled: number) => void, timeoutMs = 30_000): Promise<number> {
    const target = await this.options.store.headPosition();
    const deadline = Date.now() + timeoutMs;
    let total = 0;
    for (;;) {
      const handled = await this.runOnce();
      if (handled > 0) {
        total += handled;
        onBatch?.(total);
        continue;
      }
      if (target === 0 || (await this.options.store.isAtOrBefore(target, await this.options.checkpoint())))
        return total;
      if (Date.now() > deadline)
        throw new Error(`${this.options.name}: catch-up stalled behind an open transaction for ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.options.signal?.notify();
    await this.loop;
  }

  private async run(): Promise<void> {
    const idle = this.options.idlePollMs ?? 200;
    let backoff = idle;
    while (this.running) {
      // Noted before the read: an append notified while it runs must end the wait after it at once.
      const seen = this.options.signal?.notified;
      try {
        const handled = await this.runOnce();
        this.passes++;
        this.lastError = null;
        backoff = idle;
        if (handled === 0) await this.pause(this.heldBackRetry() ?? alignedTo(idle), seen);
        else if (
          handled < (this.options.batchSize ?? 500) &&
          handled >= (this.options.lingerAfter ?? 1) &&
          this.options.lingerMs
        )
          await sleep(this.options.lingerMs);
      } catch (error) {
        this.passes++;
        if (error instanceof CheckpointConflict) {
          // Another runner of the same read model (a second process) folded the page first, as this one would have:
          // nothing failed. Read on from where it got, after a moment at random so two racers fall out of step.
          this.lastError = null;
          await sleep(Math.random() * RACE_LOST_PAUSE_MS);
          continue;
        }
        this.lastError = error;
        this.options.onError?.(error);
        backoff = Math.min(backoff * 2, 5_000);
        await this.pause(backoff);
      }
    }
  }

  /**
   * A short wait, backing off, while an announced append of its types lies past what it has read; null once it has
   * passed it (positions compared as numbers: at worst one read early or one idle poll late, never a missed event).
   */
  private heldBackRetry(): number | null {
    const announced = this.announced;
    if (!announced) return null;
    if (
      (this.recorded !== null && this.recorded >= announced.position) ||
      Date.now() - announced.at > HELD_BACK_GIVE_UP_MS
    ) {
      this.announced = null;
      return null;
    }
    const wait = announced.retryMs;
    announced.retryMs = Math.min(wait * 2, HELD_BACK_RETRY_MS.most);
    return wait;
  }

  private pause(ms: number, since?: number): Promise<void> {
    return this.options.signal
      ? this.options.signal.wait(ms, this.wakeTypes, since)
      : new Promise((resolve) => setTimeout(resolve, ms).unref());
  }
}
