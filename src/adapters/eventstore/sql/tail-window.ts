import type { FilteredPage, RecordedEvent } from '../../../domain/ports/event-store.js';

/** One read of the log after a position, in readAll order, with each event's stored size. */
export interface TailRead {
  events: RecordedEvent[];
  /** Stored bytes of each event's data and metadata, in `events`' order. */
  sizes: number[];
}

export interface TailWindowLimits {
  /** Events one read of the log asks for. */
  readCount: number;
  maxEvents: number;
  maxBytes: number;
  /** A window nobody was served from for this long is moved to the next reader that misses it. */
  staleMs: number;
}

export const DEFAULT_TAIL_LIMITS: TailWindowLimits = {
  readCount: 1_000,
  maxEvents: 5_000,
  maxBytes: 32 * 1024 * 1024,
  staleMs: 1_000,
};

/**
 * The most recent slice of the log, read once and served to every live subscription of this process: a dozen read
 * models, processors and dispatchers all follow the same tail, and each used to read it with its own query after
 * every append. The slice is contiguous in readAll order (rule 1's visibility order): it is only ever extended by
 * reading after its last event, so the events after any position inside it are exactly what the store would read
 * after that position, as far as the slice reaches. A reader whose position is not inside reads the store itself
 * (`page` answers null). Events are frozen: every reader gets the same objects.
 */
export class TailWindow {
  private events: RecordedEvent[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  /** The position the slice starts after (null: empty, not anchored). */
  private start: number | null = null;
  /** Absolute index of events[0]; positions map to absolute indexes so trimming the front moves nothing. */
  private base = 0;
  private readonly indexOf = new Map<number, number>();
  private lastServedAt = 0;
  private reading: Promise<void> | null = null;
  /** Moves with every new anchor: a read begun on the previous slice adds nothing to this one. */
  private epoch = 0;
  /** Reads started so far: a reader needs one started after it arrived to see what was appended before it asked. */
  private readsStarted = 0;

  constructor(
    private readonly read: (after: number, maxCount: number) => Promise<TailRead>,
    private readonly limits: TailWindowLimits = DEFAULT_TAIL_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The page after `after` (at most `maxCount` events scanned, `types` only where given), or null when `after` is
   * not inside the slice and the caller must read the store.
   */
  async page(after: number, maxCount: number, types: ReadonlySet<string> | null): Promise<FilteredPage | null> {
    let from = this.firstAfter(after);
    if (from === null) {
      if (!this.isStale()) return null;
      await this.anchorAt(after);
    } else if (from >= this.end) await this.extend();
    from = this.firstAfter(after);
    if (from === null) return null;
    this.lastServedAt = this.clock();
    const scannedEvents = this.events.slice(from - this.base, from - this.base + maxCount);
    const last = scannedEvents[scannedEvents.length - 1];
    return {
      events: types ? scannedEvents.filter((e) => types.has(e.type)) : scannedEvents,
      scanned: scannedEvents.length,
      last: last?.position ?? null,
    };
  }

  /** Absolute index of the first event after `after`, if `after` is the slice's start or one of its events. */
  private firstAfter(after: number): number | null {
    if (this.start === null) return null;
    if (after === this.start) return this.base;
    const at = this.indexOf.get(after);
    return at === undefined ? null : at + 1;
  }

  private get end(): number {
    return this.base + this.events.length;
  }

  private isStale(): boolean {
    return this.start === null || this.clock() - this.lastServedAt >= this.limits.staleMs;
  }

  /** Nobody follows the slice any more: start a new one where this reader is. */
  private async anchorAt(after: number): Promise<void> {
    await this.reading;
    if (this.firstAfter(after) !== null || !this.isStale()) return;
    this.clear(after);
    this.lastServedAt = this.clock();
    await this.extend();
  }

  /** Reads after the slice's end once a read has started since the caller asked; readers at the end share it. */
  private async extend(): Promise<void> {
    const needed = this.readsStarted + 1;
    while (this.readsStarted < needed) {
      if (this.reading) {
        await this.reading;
        continue;
      }
      this.readsStarted++;
      this.reading = this.readMore().finally(() => {
        this.reading = null;
      });
    }
    await this.reading;
  }

  private async readMore(): Promise<void> {
    const last = this.events[this.events.length - 1]?.position ?? this.start;
    const epoch = this.epoch;
    if (last === null) return;
    const { events, sizes } = await this.read(last, this.limits.readCount);
    if (epoch !== this.epoch) return;
    events.forEach((event, i) => {
      this.indexOf.set(event.position, this.end);
      this.events.push(deepFreeze(event));
      this.sizes.push(sizes[i] ?? 0);
      this.bytes += sizes[i] ?? 0;
    });
    this.trim();
  }

  private trim(): void {
    let drop = 0;
    let bytes = this.bytes;
    while (
      this.events.length - drop > 0 &&
      (this.events.length - drop > this.limits.maxEvents || bytes > this.limits.maxBytes)
    ) {
      bytes -= this.sizes[drop]!;
      drop++;
    }
    if (drop === 0) return;
    for (const event of this.events.slice(0, drop)) this.indexOf.delete(event.position);
    this.start = this.events[drop - 1]!.position;
    this.events = this.events.slice(drop);
    this.sizes = this.sizes.slice(drop);
    this.bytes = bytes;
    this.base += drop;
  }

  private clear(start: number): void {
    this.events = [];
    this.sizes = [];
    this.bytes = 0;
    this.indexOf.clear();
    this.base = 0;
    this.start = start;
    this.epoch++;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
