import { deciderSpec } from '../shared/given-when-then.js';
import type { PollEvent, PollState } from './poll-events.js';
import { pollFailure } from './poll-page.js';
import { type CandidateItem, pollDecider, type RecordPoll, type SetPollCursor, type SetPollSecret } from './poll.js';

/** Shared by the poll decider specs: one Trigger polling https://feed.test/a in its first life. */
export const spec = deciderSpec(pollDecider);
export const AT = '2026-01-01T00:00:00.000Z';
export const URL_A = 'https://feed.test/a';
export const URL_B = 'https://feed.test/b';
export const ids = { tenant: 'acme', triggerId: 't-poll' };

/** An item with a payload digest; one `observed` before was recorded with `recordedDigest` (by default the same). */
export const item = (
  index: number,
  itemId: string,
  observed = false,
  digest = `d-${itemId}`,
  recordedDigest: string | null = observed ? digest : null,
): CandidateItem => ({
  index,
  itemId,
  problem: null,
  occurrenceId: `occ-${itemId}`,
  observed,
  digest,
  recordedDigest,
});
export const invalid = (
  index: number,
  problem: string,
  itemId: string | null = null,
  digest: string | null = null,
): CandidateItem => ({
  index,
  itemId,
  problem,
  occurrenceId: null,
  observed: false,
  digest,
  recordedDigest: null,
});

export const poll = (
  items: CandidateItem[],
  nextCursor: string | null,
  extra: Partial<RecordPoll> = {},
): RecordPoll => ({
  type: 'RecordPoll',
  ...ids,
  life: 1,
  triggerRevision: 1,
  url: URL_A,
  at: AT,
  basedOnSeq: 0,
  onInvalidItem: 'quarantine',
  outcome: { ok: true, nextCursor, items },
  ...extra,
});

export const failedPoll = (basedOnSeq = 0): RecordPoll => ({
  ...poll([], null, { basedOnSeq }),
  outcome: { ok: false, failure: pollFailure('http_status', 'the upstream answered 500') },
});

export const setCursor = (cursor: string | null): SetPollCursor => ({
  type: 'SetPollCursor',
  ...ids,
  life: 1,
  url: URL_A,
  at: AT,
  cursor,
  reason: 'skip the broken item',
  actor: 'ops',
});

export const setSecret = (secretId: string): SetPollSecret => ({
  type: 'SetPollSecret',
  ...ids,
  life: 1,
  at: AT,
  secretId,
  actor: 'ops',
  origin: 'https://feed.test',
});

export type Command = RecordPoll | SetPollCursor | SetPollSecret;

export const stateAfter = (events: PollEvent[], command: Command): PollState =>
  spec.given(events).when(command).thenState();

export const eventsOf = (events: PollEvent[], command: Command): PollEvent[] => {
  const result = spec.given(events).when(command).result();
  if (!Array.isArray(result)) throw new Error(JSON.stringify(result));
  return result;
};
