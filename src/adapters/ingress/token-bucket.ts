/** A token bucket per key, refilled continuously; bounded in keys so a storm of names cannot grow it. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly maxKeys = 10_000) {}

  take(
    key: string,
    perSecond: number,
    burst: number,
    nowMs = performance.now(),
  ): { ok: true } | { ok: false; retryAfterSeconds: number } {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: burst, at: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * perSecond);
    bucket.at = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / Math.max(perSecond, 0.001))) };
  }
}
