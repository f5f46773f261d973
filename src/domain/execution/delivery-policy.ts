/**
 * EX-4: how an execution is delivered, from the Trigger revision that admitted it (its `delivery` block,
 * defaults written out) and copied into the execution request, so a later revision never changes the
 * policy of work already admitted.
 */
export interface DeliveryPolicy {
  /** Deliveries including the first; the last one unclaimed or failed dead-letters the execution. */
  maxAttempts: number;
  backoff: { initialSeconds: number; multiplier: number; maxSeconds: number };
  /** A pending delivery not claimed within this many seconds is delivered again. */
  claimWithinSeconds: number;
  /** Reach the consumer as the claim's `limits` (EX-5); an execution claimed longer than this is overdue. */
  maxRuntimeSeconds: number | null;
  budgetUnits: number | null;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = Object.freeze({
  maxAttempts: 5,
  backoff: Object.freeze({ initialSeconds: 1, multiplier: 2, maxSeconds: 300 }),
  claimWithinSeconds: 60,
  maxRuntimeSeconds: null,
  budgetUnits: null,
}) as DeliveryPolicy;

/** Bounds a definition may ask for: fractional seconds let tests run fast, the ceilings keep timers sane. */
export const DELIVERY_BOUNDS = Object.freeze({
  maxAttempts: { min: 1, max: 100 },
  initialSeconds: { min: 0.1, max: 86_400 },
  multiplier: { min: 1, max: 10 },
  maxSeconds: { min: 0.1, max: 7 * 86_400 },
  claimWithinSeconds: { min: 0.1, max: 7 * 86_400 },
  maxRuntimeSeconds: { min: 1, max: 30 * 86_400 },
  budgetUnits: { min: 0, max: 1_000_000_000 },
});

/**
 * The wait after the `attempt`-th delivery (1-based): `initialSeconds × multiplier^(attempt − 1)`, capped at
 * `maxSeconds`. Deterministic, so a replay of the log computes the same timers.
 */
export function backoffSeconds(policy: DeliveryPolicy, attempt: number): number {
  const { initialSeconds, multiplier, maxSeconds } = policy.backoff;
  const exponent = Math.max(0, attempt - 1);
  return Math.min(maxSeconds, initialSeconds * Math.pow(multiplier, exponent));
}

/** `at` plus fractional seconds, as the RFC 3339 instant timers compare against the database clock. */
export const secondsAfter = (at: string, seconds: number): string =>
  new Date(Date.parse(at) + Math.round(seconds * 1000)).toISOString();
