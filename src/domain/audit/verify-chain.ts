import { chainHash, eventContent, type HashedEventContent } from '../shared/event-hash.js';

export interface ChainedEvent extends HashedEventContent {
  recordedAt: string;
  hash: string;
  prevHash: string | null;
}

export type ChainProblem = 'revision_gap' | 'prev_hash_mismatch' | 'hash_mismatch';

export interface ChainBreak {
  streamId: string;
  revision: number;
  problem: ChainProblem;
}

/** What the next event of a stream must follow: the last event seen (null before revision 0). */
export interface ChainTip {
  revision: number;
  hash: string;
}

/** AU-2 for one event after `tip`: consecutive revision, predecessor's hash, its own content hash. */
export function chainProblems(tip: ChainTip | null, event: ChainedEvent): ChainProblem[] {
  const problems: ChainProblem[] = [];
  if (event.revision !== (tip ? tip.revision + 1 : 0)) problems.push('revision_gap');
  if (event.prevHash !== (tip ? tip.hash : null)) problems.push('prev_hash_mismatch');
  if (chainHash(event.prevHash, event.recordedAt, eventContent(event)) !== event.hash) problems.push('hash_mismatch');
  return problems;
}

/** AU-2: consecutive revisions from 0, predecessor hashes, content hashes; every break, not just the first. */
export function verifyStreamChain(events: readonly ChainedEvent[]): ChainBreak[] {
  const breaks: ChainBreak[] = [];
  let tip: ChainTip | null = null;
  for (const event of events) {
    for (const problem of chainProblems(tip, event))
      breaks.push({ streamId: event.streamId, revision: event.revision, problem });
    // The next event is checked against this one as stored, so one tampered row is reported once, where it is.
    tip = { revision: event.revision, hash: event.hash };
  }
  return breaks;
}
