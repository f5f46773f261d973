import type { FilteredPage } from '../../domain/ports/event-store.js';

/**
 * Between the one log read of a rebuild and one read model's fold: at most `capacity` pages wait, so the read runs
 * ahead of the slowest fold by that much and no more. One writer, one reader.
 */
export class PageChannel {
  private readonly pages: FilteredPage[] = [];
  private ended = false;
  private broken = false;
  private waiting: (() => void) | null = null;

  constructor(private readonly capacity: number) {}

  /** False once broken: what is put is dropped. */
  get open(): boolean {
    return !this.broken;
  }

  async put(page: FilteredPage): Promise<void> {
    while (this.pages.length >= this.capacity && !this.broken) await this.change();
    if (this.broken) return;
    this.pages.push(page);
    this.wake();
  }

  /** The next page; undefined once ended and drained, or at once when broken. */
  async take(): Promise<FilteredPage | undefined> {
    while (this.pages.length === 0 && !this.ended && !this.broken) await this.change();
    if (this.broken) return undefined;
    const page = this.pages.shift();
    this.wake();
    return page;
  }

  /** No more pages: the reader takes what waits, then undefined. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Stop: waiting pages are dropped, both sides return. */
  break(): void {
    this.broken = true;
    this.pages.length = 0;
    this.wake();
  }

  private change(): Promise<void> {
    return new Promise((resolve) => {
      const earlier = this.waiting;
      this.waiting = () => {
        earlier?.();
        resolve();
      };
    });
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}
