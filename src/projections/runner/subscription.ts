import type { EventStore, FilteredPage, ReadAllOptions, RecordedEvent } from '../../domain/ports/event-store.js';
import type { AppendSignal } from './append-signal.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export interface SubscriptionOptions {
  name: string;
  store: EventStore;
  /** Where this subscription resumes; read before each batch so several runners stay consistent. */
  checkpoint: () => Promise<number>;
  /**
   * Processes a batch and records the new checkpoint `to` (the position of the page's last event,
   * which with `types` need not be among `events`).
   */
  handle: (events: RecordedEvent[], from: number, to: number) => Promise<void>;
  /** Only these event types are handed to `handle` (read so where the store can filter). */
  types?: readonly string[];
  /** With `types`: data paths `handle` never uses (payloads), not read where the store can leave them out. */
  omitData?: ReadAllOptions['omitData'];
  batchSize?: number;
  idlePollMs?: number;
  /**
   * After a partial batch, wait this long before reading again so that events arriving meanwhile
   * are handled together: under load, each read and transaction then serves many events instead of
   * a few (per-batch costs dominate otherwise). Latency grows by at most this much; 0 disables it.
   */
  lingerMs?: number;
  /**
   * Linger only after a batch of at least this many events (default 1): a smaller batch means little
   * load, and the next event is then handled as soon as it is appended, with nothing added.
   */
  lingerAfter?: number;
  signal?: AppendSignal;
  onError?: (error: unknown) => void;
}

/**
 * A checkpointed catch-up subscription over the global log. Projections and processors differ only
 * in their `handle`: projections commit rows and checkpoint together, processors rely on
 * idempotent appends and save the checkpoint after.
 */
export class Subscription {
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  /** The checkpoint this subscription itself last recorded; saves reading it back before every batch. */
  private recorded: number | null = null;

  constructor(private readonly options: SubscriptionOptions) {}

  get name(): string {
    return this.options.name;
  }

  get error(): unknown {
    return this.lastError;
  }

  /** Processes at most one batch; returns how many events it handled. */
  async runOnce(): Promise<number> {
    const from = this.recorded ?? (await this.options.checkpoint());
    const page = await this.read(from);
    if (page.last === null) {
      // Idle: re-read the checkpoint next time, in case a rebuild or another runner moved it.
      this.recorded = null;
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

  private async read(after: number): Promise<FilteredPage> {
    const { store, types, batchSize } = this.options;
    const options = { after, maxCount: batchSize ?? 500 };
    if (types && store.readAllOf) return store.readAllOf(types, { ...options, omitData: this.options.omitData });
    const events = await store.readAll(options);
    const wanted = types ? new Set(types) : null;
    return {
      events: wanted ? events.filter((e) => wanted.has(e.type)) : events,
      scanned: events.length,
      last: events[events.length - 1]?.position ?? null,
    };
  }

  /** Forget the remembered checkpoint (after resetting it from outside). */
  forgetCheckpoint(): void {
    this.recorded = null;
  }

  /**
   * Runs batches until this subscription has passed the log's head as it was when called (rebuilds,
   * tests, read-your-writes). An empty page is not the end: readAll holds events back while an older
   * transaction anywhere in the database is still open (decision 3), so it waits for those.
   */
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
      try {
        const handled = await this.runOnce();
        this.lastError = null;
        backoff = idle;
        if (handled === 0) await this.pause(idle);
        else if (
          handled < (this.options.batchSize ?? 500) &&
          handled >= (this.options.lingerAfter ?? 1) &&
          this.options.lingerMs
        )
          await sleep(this.options.lingerMs);
      } catch (error) {
        this.lastError = error;
        this.options.onError?.(error);
        backoff = Math.min(backoff * 2, 5_000);
        await this.pause(backoff);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return this.options.signal
      ? this.options.signal.wait(ms)
      : new Promise((resolve) => setTimeout(resolve, ms).unref());
  }
}
