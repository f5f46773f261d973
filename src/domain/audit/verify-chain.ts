import { chainHash, eventContent, type HashedEventContent } from '../shared/event-hash.js';

export interface ChainedEvent extends HashedEventContent {
  recordedAt: string;
  hash: string;
  prevHash: string | null;
}

export interface ChainBreak {
  streamId: string;
  revision: number;
  problem: 'revision_gap' | 'prev_hash_mismatch' | 'hash_mismatch';
}

/**
 * Verifies one stream's hash chain (AU-2): revisions are consecutive from 0, each event names its
 * predecessor's hash, and its own hash matches its content. Returns every break, not just the first.
 */
export function verifyStreamChain(events: readonly ChainedEvent[]): ChainBreak[] {
  const breaks: ChainBreak[] = [];
  let previous: ChainedEvent | null = null;
  for (const event of events) {
    const at = { streamId: event.streamId, revision: event.revision };
    if (event.revision !== (previous ? previous.revision + 1 : 0)) breaks.push({ ...at, problem: 'revision_gap' });
    if (event.prevHash !== (previous ? previous.hash : null)) breaks.push({ ...at, problem: 'prev_hash_mismatch' });
    if (chainHash(event.prevHash, event.recordedAt, eventContent(event)) !== event.hash)
      breaks.push({ ...at, problem: 'hash_mismatch' });
    previous = event;
  }
  return breaks;
}
