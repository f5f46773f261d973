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

/** AU-2: consecutive revisions from 0, predecessor hashes, content hashes; every break, not just the first. */
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
