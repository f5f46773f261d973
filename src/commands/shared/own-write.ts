import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { requestOf, type RequestIdentity } from './command-context.js';

export interface OwnWrite {
  /** The stream up to and including the request's last event: what it answered from. */
  through: readonly RecordedEvent[];
  /** The request's own events (one append, so one run). */
  own: readonly RecordedEvent[];
  position: number;
}

/** Where a request's own events stand in a stream it is run against again (decision 9, docs/architecture.md). */
export function findOwnWrite(recorded: readonly RecordedEvent[], request: RequestIdentity): OwnWrite | null {
  const isOwn = (event: RecordedEvent) => {
    const written = requestOf(event.metadata);
    return written?.key === request.key && written.fingerprint === request.fingerprint;
  };
  const end = recorded.findLastIndex(isOwn);
  if (end < 0) return null;
  let start = end;
  while (start > 0 && isOwn(recorded[start - 1]!)) start--;
  return {
    through: recorded.slice(0, end + 1),
    own: recorded.slice(start, end + 1),
    position: recorded[end]!.position,
  };
}
