import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<{ replayed: boolean }>();

/**
 * Whether `work` answered from events an earlier run of the same request had committed (SEC-3), so the
 * HTTP answer says `Idempotency-Replayed`. Only a writer holding that request's key and fingerprint
 * reports one, so background work that happens to run inside the request cannot.
 */
export async function noticingReplayedWrites<T>(work: () => Promise<T>): Promise<{ result: T; replayed: boolean }> {
  const noticed = { replayed: false };
  const result = await scope.run(noticed, work);
  return { result, replayed: noticed.replayed };
}

export function reportReplayedWrite(): void {
  const noticed = scope.getStore();
  if (noticed) noticed.replayed = true;
}
