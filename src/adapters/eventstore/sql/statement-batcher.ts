interface Pending<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface StatementBatcherOptions {
  maxBatch?: number;
  maxInFlight?: number;
}

/**
 * Calls that arrive while earlier ones are in flight share the next statement (and its WAL flush). Nothing waits
 * on a timer, so an idle process sends each call at once; if `run` throws, every call of that batch fails.
 */
export class StatementBatcher<I, R> {
  private queue: Pending<I, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    options: StatementBatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  submit(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight++;
    void this.execute(batch).finally(() => {
      this.inFlight--;
      this.schedule();
    });
  }

  private async execute(batch: Pending<I, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      batch.forEach((p) => p.reject(error));
    }
  }
}
