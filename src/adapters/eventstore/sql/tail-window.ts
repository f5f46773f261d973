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
  /** How long a read after the last noticed append answers readers at the end (see `extend`). */
  freshMs: number;
}

/** Noticed appends the slice has not shown yet are forgotten after this long, or beyond this many. */
const UNSEEN_MS = 5_000;
const MAX_UNSEEN = 1_000;
/** After a read held a noticed append back, its subscribers are woken again this soon, doubling up to the most. */
const HELD_BACK_RETRY_MS = { first: 5, most: 50 };

export const DEFAULT_TAIL_LIMITS: TailWindowLimits = {
  readCount: 1_000,
  maxEvents: 5_000,
  maxBytes: 32 * 1024 * 1024,
  staleMs: 1_000,
  freshMs: 50,
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
  /** Appends this process noticed, and how many had been noticed when the latest read started. */
  private appendsNoticed = 0;
  private latestRead: { appends: number; startedAt: number; number: number } | null = null;
  private readsStarted = 0;
  /**
   * Positions of noticed appends no read has shown yet, with when they were noticed. An append commits before it
   * is noticed, but a read may still hold it back (rule 1: an older transaction anywhere is still open); a read
   * that started after the notice is then not all there is to see, and must not answer the next reader.
   */
  private readonly unseen = new Map<number, { noticedAt: number; types: readonly string[] | undefined }>();
  private heldBackListener: ((types: readonly string[] | undefined) => void) | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryMs = HELD_BACK_RETRY_MS.first;
  /** The oldest unseen append when the back-off last started over. */
  private retryingFor: number | undefined;

  constructor(
    private readonly read: (after: number, maxCount: number) => Promise<TailRead>,
    private readonly limits: TailWindowLimits = DEFAULT_TAIL_LIMITS,
    private readonly clock: () => number = Date.now,
    /** Whether every append of this process reaches `noteAppend` (then a reader at the end may be answered empty). */
    private readonly noticesAppends = false,
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

  /**
   * Reads after the slice's end unless the latest read already started after every append this process noticed
   * (`noteAppend`), showed every one of them (an append held back by rule 1 is not), and began less than `freshMs`
   * before the caller asked: then that read is all there is to see from
   * here, and other processes' appends wait at most `freshMs` (an idle poll waits longer). Without noticed appends,
   * only a read started after the caller asked will do. Readers at the end share the read.
   */
  private async extend(): Promise<void> {
    if (!this.noticesAppends) this.appendsNoticed++;
    const appends = this.appendsNoticed;
    const askedAt = this.clock();
    const startedBefore = this.readsStarted;
    for (;;) {
      const latest = this.latestRead;
      // A read begun after the caller asked always does; an earlier one only if nothing noticed is missing from it.
      if (
        latest &&
        latest.appends >= appends &&
        (latest.number > startedBefore ||
          (askedAt - latest.startedAt < this.limits.freshMs && !this.awaitsUnseen(askedAt)))
      ) {
        await this.reading;
        return;
      }
      if (this.reading) {
        await this.reading;
        continue;
      }
      this.latestRead = { appends: this.appendsNoticed, startedAt: this.clock(), number: ++this.readsStarted };
      this.reading = this.readMore()
        .catch((error: unknown) => {
          this.latestRead = null;
          throw error;
        })
        .finally(() => {
          this.reading = null;
        });
    }
  }

  /** This process appended (the store's append signal); the next reader at the end reads again. */
  noteAppend(types?: readonly string[], position?: number): void {
    this.appendsNoticed++;
    if (position === undefined) return;
    if (this.unseen.size >= MAX_UNSEEN) this.unseen.delete(this.unseen.keys().next().value!);
    this.unseen.set(position, { noticedAt: this.clock(), types });
  }

  /**
   * Called with the event types of noticed appends a read held back, soon after, again and again (backing off)
   * until a read shows them: the transaction they wait behind may end without telling anyone (a fold, another
   * process), and the subscribers they were announced to would otherwise wait for their idle poll.
   */
  whenHeldBack(listener: (types: readonly string[] | undefined) => void): void {
    this.heldBackListener = listener;
  }

  /** Whether a noticed append is still missing from the slice (one held back longer than UNSEEN_MS no longer is). */
  private awaitsUnseen(now: number): boolean {
    for (const [position, { noticedAt }] of this.unseen) {
      if (now - noticedAt < UNSEEN_MS) return true;
      this.unseen.delete(position);
    }
    return false;
  }

  private retryHeldBack(): void {
    if (!this.heldBackListener || this.retryTimer) return;
    if (!this.awaitsUnseen(this.clock())) {
      this.retryMs = HELD_BACK_RETRY_MS.first;
      return;
    }
    // The back-off is for one append held back long, not for a busy log: under steady load some append is always
    // unseen for a moment, and a back-off that never reset held every later one back for the most (≈ 45 ms of
    // admission → claim at 25 fires/s).
    const oldest = this.unseen.keys().next().value;
    if (oldest !== this.retryingFor) [this.retryingFor, this.retryMs] = [oldest, HELD_BACK_RETRY_MS.first];
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryMs = Math.min(this.retryMs * 2, HELD_BACK_RETRY_MS.most);
      if (this.awaitsUnseen(this.clock())) this.heldBackListener?.(this.unseenTypes());
    }, this.retryMs);
    this.retryTimer.unref?.();
  }

  /** undefined when an unseen append's types are unknown (every subscriber wakes). */
  private unseenTypes(): readonly string[] | undefined {
    const types = new Set<string>();
    for (const entry of this.unseen.values()) {
      if (!entry.types) return undefined;
      entry.types.forEach((type) => types.add(type));
    }
    return [...types];
  }

  private async readMore(): Promise<void> {
    const last = this.events[this.events.length - 1]?.position ?? this.start;
    const epoch = this.epoch;
    if (last === null) return;
    const { events, sizes } = await this.read(last, this.limits.readCount);
    if (epoch !== this.epoch) return;
    events.forEach((event, i) => {
      this.unseen.delete(event.position);
      this.indexOf.set(event.position, this.end);
      this.events.push(deepFreeze(event));
      this.sizes.push(sizes[i] ?? 0);
      this.bytes += sizes[i] ?? 0;
    });
    this.trim();
    this.retryHeldBack();
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
    this.latestRead = null;
    this.unseen.clear();
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
