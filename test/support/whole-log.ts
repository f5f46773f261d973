import type { EventStore, RecordedEvent } from '../../src/domain/ports/event-store.js';

/**
 * Every event up to the head as of now. A transaction still open anywhere in the cluster (another test's, in
 * another schema: transaction ids and the snapshot's xmin are the cluster's) holds later events back from readAll
 * (rule 1, decision 3): wait until they show.
 */
export async function wholeLog(
  store: EventStore,
  options: { raw?: boolean; timeoutMs?: number } = {},
): Promise<RecordedEvent[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const head = await store.headPosition();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await store.readAll({ maxCount: 10_000, raw: options.raw ?? false });
    const last = log[log.length - 1];
    if (head === 0 || (last && (await store.isAtOrBefore(head, last.position)))) return log;
    if (Date.now() > deadline)
      throw new Error(`the log stayed held back behind an open transaction for ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
