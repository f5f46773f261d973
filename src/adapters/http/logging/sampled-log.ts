/**
 * At most one line per key and interval: a storm of refused webhooks (one source, one reason) must not
 * become a storm of log writes. The next line that passes says how many were held back.
 */
export class SampledLog {
  private readonly last = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly intervalMs = 1000,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** null: hold this one back; otherwise how many were held back since the last line of this key. */
  admit(key: string): number | null {
    const at = this.now();
    const seen = this.last.get(key);
    if (seen && at - seen.at < this.intervalMs) {
      seen.held += 1;
      return null;
    }
    if (!seen && this.last.size >= this.maxKeys) this.last.clear();
    this.last.set(key, { at, held: 0 });
    return seen?.held ?? 0;
  }
}
