/**
 * Lookups remembered for a short time, in-flight ones shared: a burst for one key costs one query.
 * A failed lookup is forgotten at once; the oldest entry leaves first when the cache is full.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const value = load();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  has(key: string): boolean {
    const hit = this.entries.get(key);
    return hit !== undefined && performance.now() - hit.at < this.ttlMs;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
