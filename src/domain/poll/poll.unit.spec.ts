import { payloadDigest } from '../occurrence/payload-digest.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { initialPollState, type PollEvent, type PollState, pollStateFor, secretGoesTo } from './poll-events.js';
import { MAX_POLL_ITEM_BYTES, pollFailure, readPollPage } from './poll-page.js';
import {
  acceptedItems,
  type CandidateItem,
  nextPollDelaySeconds,
  pollDecider,
  pollHealth,
  type RecordPoll,
  replanDelaySeconds,
  type SetPollCursor,
  type SetPollSecret,
} from './poll.js';

const spec = deciderSpec(pollDecider);
const AT = '2026-01-01T00:00:00.000Z';
const URL_A = 'https://feed.test/a';
const URL_B = 'https://feed.test/b';
const ids = { tenant: 'acme', triggerId: 't-poll' };

/** An item with a payload digest; one `observed` before was recorded with `recordedDigest` (by default the same). */
const item = (
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
const invalid = (
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

const poll = (items: CandidateItem[], nextCursor: string | null, extra: Partial<RecordPoll> = {}): RecordPoll => ({
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

const failedPoll = (basedOnSeq = 0): RecordPoll => ({
  ...poll([], null, { basedOnSeq }),
  outcome: { ok: false, failure: pollFailure('http_status', 'the upstream answered 500') },
});

const setCursor = (cursor: string | null): SetPollCursor => ({
  type: 'SetPollCursor',
  ...ids,
  life: 1,
  url: URL_A,
  at: AT,
  cursor,
  reason: 'skip the broken item',
  actor: 'ops',
});

const setSecret = (secretId: string): SetPollSecret => ({
  type: 'SetPollSecret',
  ...ids,
  life: 1,
  at: AT,
  secretId,
  actor: 'ops',
  origin: 'https://feed.test',
});

type Command = RecordPoll | SetPollCursor | SetPollSecret;

const stateAfter = (events: PollEvent[], command: Command): PollState => spec.given(events).when(command).thenState();

const eventsOf = (events: PollEvent[], command: Command): PollEvent[] => {
  const result = spec.given(events).when(command).result();
  if (!Array.isArray(result)) throw new Error(JSON.stringify(result));
  return result;
};

describe('PO-1..PO-4 the poll decider', () => {
  it('PO-3 records every item in array order and moves the cursor from→to in one PollCompleted', () => {
    const [completed] = eventsOf([], poll([item(0, 'a'), item(1, 'b')], 'c1'));
    expect(completed).toEqual({
      type: 'PollCompleted',
      data: {
        ...ids,
        triggerRevision: 1,
        at: AT,
        cursor: { from: null, to: 'c1' },
        items: [
          { index: 0, itemId: 'a', disposition: 'accepted', occurrenceId: 'occ-a' },
          { index: 1, itemId: 'b', disposition: 'accepted', occurrenceId: 'occ-b' },
        ],
        held: null,
        state: {
          ...initialPollState,
          seq: 1,
          cursor: 'c1',
          binding: URL_A,
          polled: URL_A,
          lastPollAt: AT,
          lastResult: 'ok',
          life: 1,
        },
      },
    });
  });

  it('PO-2 an item already observed, or repeated within the page, is a duplicate disposition', () => {
    const [completed] = eventsOf([], poll([item(0, 'a', true), item(1, 'b'), item(2, 'b')], null));
    expect(completed!.type === 'PollCompleted' && completed!.data.items.map((i) => i.disposition)).toEqual([
      'duplicate',
      'accepted',
      'duplicate',
    ]);
  });

  it('OC-4 PO-2 an item already observed with another payload digest is a payload_conflict, never a duplicate: it starts nothing', () => {
    const events = eventsOf([], poll([item(0, 'a', true, 'd-a2', 'd-a1'), item(1, 'b', true), item(2, 'c')], 'c1'));
    const completed = events[0]!;
    if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
    expect(completed.data.items).toEqual([
      { index: 0, itemId: 'a', disposition: 'payload_conflict', occurrenceId: 'occ-a' },
      { index: 1, itemId: 'b', disposition: 'duplicate', occurrenceId: 'occ-b' },
      { index: 2, itemId: 'c', disposition: 'accepted', occurrenceId: 'occ-c' },
    ]);
    expect(acceptedItems(events)).toEqual([2]);
    // the cursor moves past it, as past a duplicate: its disposition is recorded (PO-3)
    expect(completed.data.cursor).toEqual({ from: null, to: 'c1' });
  });

  it('OC-4 PO-2 within one page the first sighting fixes the payload: the same again is a duplicate, another a payload_conflict', () => {
    const [completed] = eventsOf(
      [],
      poll(
        [
          item(0, 'b', false, 'd1'),
          item(1, 'b', false, 'd1'),
          item(2, 'b', false, 'd2'),
          item(3, 'a', true, 'x', 'y'),
          item(4, 'a', true, 'y'),
        ],
        null,
      ),
    );
    expect(completed!.type === 'PollCompleted' && completed!.data.items.map((i) => i.disposition)).toEqual([
      'accepted',
      'duplicate',
      'payload_conflict',
      'payload_conflict',
      'duplicate',
    ]);
  });

  it('PO-1 an answer without a next cursor keeps the cursor', () => {
    const first = eventsOf([], poll([item(0, 'a')], 'c1'));
    expect(stateAfter(first, poll([], null, { basedOnSeq: 1 })).cursor).toBe('c1');
  });

  it('PO-1 the cursor belongs to its binding: a revision polling another url starts without one', () => {
    const first = eventsOf([], poll([item(0, 'a')], 'c1'));
    const moved = eventsOf(first, poll([item(0, 'x')], 'v1', { basedOnSeq: 1, url: 'https://feed.test/b' }));
    const completed = moved[0]!;
    if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
    expect(completed.data.cursor).toEqual({ from: null, to: 'v1' });
    expect(completed.data.state).toMatchObject({ cursor: 'v1', binding: 'https://feed.test/b' });
  });

  it('PO-4 a failure starts nothing, keeps the cursor, and counts failures in a row until a poll succeeds', () => {
    const first = eventsOf([], poll([item(0, 'a')], 'c1'));
    const failed = eventsOf(first, failedPoll(1));
    expect(failed).toEqual([
      {
        type: 'PollFailed',
        data: expect.objectContaining({ cursor: 'c1', failure: { kind: 'http_status', detail: expect.any(String) } }),
      },
    ]);
    const twice = [...first, ...failed, ...eventsOf([...first, ...failed], failedPoll(2))];
    const state = twice.reduce(pollDecider.evolve, initialPollState);
    expect(state).toMatchObject({ cursor: 'c1', consecutiveFailures: 2, lastResult: 'failed' });
    expect(stateAfter(twice, poll([], null, { basedOnSeq: 3 }))).toMatchObject({
      consecutiveFailures: 0,
      lastError: null,
    });
  });

  it('PO-4 quarantine records an invalid item with its reason and goes on', () => {
    const events = eventsOf([], poll([item(0, 'a'), invalid(1, 'the item has no id at /id'), item(2, 'c')], 'c1'));
    const completed = events[0]!;
    if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
    expect(completed.data.items).toEqual([
      { index: 0, itemId: 'a', disposition: 'accepted', occurrenceId: 'occ-a' },
      { index: 1, itemId: null, disposition: 'quarantined', reason: 'the item has no id at /id' },
      { index: 2, itemId: 'c', disposition: 'accepted', occurrenceId: 'occ-c' },
    ]);
    expect(completed.data.state).toMatchObject({
      cursor: 'c1',
      held: null,
      quarantined: [{ itemId: null, index: 1, reason: 'the item has no id at /id', at: AT }],
    });
  });

  describe('PO-4 an invalid item a later poll returns again', () => {
    const AT2 = '2026-01-01T00:01:00.000Z';
    const page = [invalid(0, 'schema', 'q', 'd-q'), invalid(1, 'the item has no id at /id', null, 'd-n')];
    const first = eventsOf([], poll(page, null));
    const recordedFirst = [
      { itemId: 'q', index: 0, reason: 'schema', at: AT },
      { itemId: null, index: 1, reason: 'the item has no id at /id', at: AT },
    ];

    it('already quarantined (same item id, same digest) is quarantined again in its page, not recorded again', () => {
      const again = eventsOf(first, poll(page, null, { basedOnSeq: 1, at: AT2 }));
      const completed = again[0]!;
      if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
      // an explicit disposition every time (never a silent skip)…
      expect(completed.data.items).toEqual([
        { index: 0, itemId: 'q', disposition: 'quarantined', reason: 'schema' },
        { index: 1, itemId: null, disposition: 'quarantined', reason: 'the item has no id at /id' },
      ]);
      // …and one quarantine record per item, from when it was first quarantined
      expect(completed.data.state.quarantined).toMatchObject(recordedFirst);
      expect(completed.data.state.quarantined).toHaveLength(2);
    });

    it('the same id with another digest, or an item without a digest to recognize it by, is recorded again', () => {
      const changed = [invalid(0, 'schema', 'q', 'd-q2'), invalid(1, 'too deep', 'deep', null)];
      const once = eventsOf(first, poll(changed, null, { basedOnSeq: 1, at: AT2 }));
      const twice = eventsOf([...first, ...once], poll(changed, null, { basedOnSeq: 2, at: AT2 }));
      expect(twice[0]!.data.state.quarantined).toMatchObject([
        ...recordedFirst,
        { itemId: 'q', index: 0, reason: 'schema', at: AT2 },
        { itemId: 'deep', index: 1, reason: 'too deep', at: AT2 },
        { itemId: 'deep', index: 1, reason: 'too deep', at: AT2 },
      ]);
      expect(twice[0]!.data.state.quarantined).toHaveLength(5);
    });

    it('repeated within one page is recorded once', () => {
      const [completed] = eventsOf([], poll([page[0]!, invalid(1, 'schema', 'q', 'd-q')], null));
      expect(completed!.data.state.quarantined).toMatchObject([{ itemId: 'q', index: 0, reason: 'schema', at: AT }]);
      expect(completed!.data.state.quarantined).toHaveLength(1);
    });
  });

  it('PO-4 hold stops before the invalid item with the cursor unmoved; later polls record nothing until the cursor is set', () => {
    const command = poll([item(0, 'a'), invalid(1, 'schema', 'b'), item(2, 'c')], 'c1', { onInvalidItem: 'hold' });
    const held = eventsOf([], command);
    const completed = held[0]!;
    if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
    expect(completed.data.items).toEqual([{ index: 0, itemId: 'a', disposition: 'accepted', occurrenceId: 'occ-a' }]);
    expect(completed.data.cursor).toEqual({ from: null, to: null });
    expect(completed.data.held).toEqual({ itemId: 'b', index: 1, reason: 'schema', at: AT });
    expect(pollHealth(completed.data.state)).toBe('held');
    spec
      .given(held)
      .when(poll([item(0, 'z')], 'c9', { basedOnSeq: 1 }))
      .then([]);
    const released = eventsOf(held, setCursor('c1'));
    expect(released).toEqual([
      {
        type: 'PollCursorSet',
        data: {
          ...ids,
          at: AT,
          actor: 'ops',
          reason: 'skip the broken item',
          from: null,
          to: 'c1',
          released: { itemId: 'b', index: 1, reason: 'schema', at: AT },
          state: expect.objectContaining({ seq: 2, cursor: 'c1', held: null }),
        },
      },
    ]);
    expect(stateAfter([...held, ...released], poll([item(0, 'd')], 'c2', { basedOnSeq: 2 })).cursor).toBe('c2');
  });

  it('PO-3 a fetch based on an older state records nothing (another poller, or an operator, got there first)', () =>
    spec
      .given(eventsOf([], poll([item(0, 'a')], 'c1')))
      .when(poll([item(0, 'a')], 'c1', { basedOnSeq: 0 }))
      .then([]));

  it('PO-4 backs off after failures: the interval doubles per failure in a row, capped', () => {
    expect([0, 1, 2, 3].map((n) => nextPollDelaySeconds(1, n))).toEqual([1, 2, 4, 8]);
    expect(nextPollDelaySeconds(60, 30)).toBe(3600);
    expect(nextPollDelaySeconds(7200, 5)).toBe(7200);
  });

  describe('a Trigger deleted and created again (api.md: PUT at revision 0) is a new life', () => {
    // life 1: a cursor, a quarantined item, a hold, a secret; the Trigger is then deleted at 2 and created at 3
    const first = eventsOf([], poll([item(0, 'a'), invalid(1, 'schema', 'q')], 'c1'));
    const secret = eventsOf(first, setSecret('s-1'));
    const held = eventsOf(
      [...first, ...secret],
      poll([invalid(0, 'schema', 'h')], 'c2', { basedOnSeq: 2, onInvalidItem: 'hold' }),
    );
    const oldLife = [...first, ...secret, ...held];
    const failedLife = [...first, ...eventsOf(first, failedPoll(1))];
    const again = { life: 3, triggerRevision: 3 };

    it('PO-1 PO-4 its first poll starts from no cursor: the old hold, cursor, quarantine and secret are not its own', () => {
      const polled = eventsOf(oldLife, poll([item(0, 'a')], 'n1', { ...again, basedOnSeq: 3 }));
      const completed = polled[0]!;
      if (completed.type !== 'PollCompleted') throw new Error('expected PollCompleted');
      expect(completed.data.cursor).toEqual({ from: null, to: 'n1' });
      expect(completed.data.items).toEqual([{ index: 0, itemId: 'a', disposition: 'accepted', occurrenceId: 'occ-a' }]);
      expect(completed.data.state).toEqual({
        ...initialPollState,
        seq: 4,
        cursor: 'n1',
        binding: URL_A,
        polled: URL_A,
        lastPollAt: AT,
        lastResult: 'ok',
        life: 3,
      });
      // a fetch based on the stream's state before (the old life's poller) still records nothing
      spec
        .given([...oldLife, ...polled])
        .when(poll([item(0, 'b')], 'n2', { ...again, basedOnSeq: 3 }))
        .then([]);
    });

    it("PO-4 failures in a row are counted from none: the old life's backoff is not carried over", () => {
      const failed = eventsOf(failedLife, { ...failedPoll(2), ...again });
      expect(failed[0]!.data.state).toMatchObject({ consecutiveFailures: 1, cursor: null, life: 3 });
      expect(failed[0]!.type === 'PollFailed' && failed[0]!.data.cursor).toBeNull();
    });

    it('PO-1 a cursor set or a secret set now replaces nothing of the old life', () => {
      const set = eventsOf(oldLife, { ...setCursor('x1'), life: 3 })[0]!;
      expect(set.type === 'PollCursorSet' && [set.data.from, set.data.released]).toEqual([null, null]);
      expect(set.data.state).toMatchObject({ seq: 4, cursor: 'x1', quarantined: [], secret: null, life: 3 });
      const rotated = eventsOf(oldLife, { ...setSecret('s-2'), life: 3 })[0]!;
      expect(rotated.type === 'PollSecretSet' && rotated.data.replaced).toBeNull();
      expect(rotated.data.state).toMatchObject({ cursor: null, held: null, secret: { secretId: 's-2' }, life: 3 });
    });

    it("a state recorded before lives were told apart is the first life's", () => {
      const { life: _, ...unmarked } = oldLife.at(-1)!.data.state;
      expect(pollStateFor(unmarked, 1)).toBe(unmarked);
      expect(pollStateFor(unmarked, 3)).toEqual({ ...initialPollState, seq: 3, life: 3 });
    });
  });

  it('PO-4 failures in a row are the binding polled: another url starts from none and is due at once (audit F #10)', () => {
    const failing = [failedPoll(0), failedPoll(1), failedPoll(2)].reduce<PollEvent[]>(
      (events, command) => [...events, ...eventsOf(events, command)],
      [],
    );
    const state = failing.at(-1)!.data.state;
    expect(state).toMatchObject({ consecutiveFailures: 3, polled: URL_A });
    expect(replanDelaySeconds(state, { url: URL_A, everySeconds: 60 })).toBe(60 * 2 ** 3);
    expect(replanDelaySeconds(state, { url: URL_B, everySeconds: 60 })).toBe(0);
    const onB = stateAfter(failing, { ...failedPoll(3), url: URL_B });
    expect(onB).toMatchObject({ consecutiveFailures: 1, polled: URL_B });
    expect(replanDelaySeconds(onB, { url: URL_B, everySeconds: 60 })).toBe(120);
    // a state recorded before `polled` was kept: its last completed poll's url stands in
    const { polled: _, ...unmarked } = { ...state, binding: URL_A };
    expect(replanDelaySeconds(unmarked, { url: URL_B, everySeconds: 60 })).toBe(0);
    expect(replanDelaySeconds({ ...unmarked, binding: null }, { url: URL_B, everySeconds: 60 })).toBe(480);
  });

  it('OP-1 three failed polls in a row make the Trigger failing (audit F #6)', () => {
    expect(pollHealth({ held: null, consecutiveFailures: 2 })).toBe('ok');
    expect(pollHealth({ held: null, consecutiveFailures: 3 })).toBe('failing');
    expect(pollHealth({ held: null, consecutiveFailures: 12 })).toBe('failing');
  });
});

describe('PO-2 reading a poll page', () => {
  const binding = { itemsPointer: '/items', idPointer: '/id', nextCursorPointer: '/next', schema: { required: [] } };

  it('refuses a page longer than the append of one poll may hold', () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ id: i }));
    expect(readPollPage({ items }, binding)).toMatchObject({ ok: false, failure: { kind: 'too_many_items' } });
  });

  it('keeps an item problem short even when it quotes a hostile member name', () => {
    const key = 'k'.repeat(100_000);
    const result = readPollPage({ items: [{ id: 'a', [key]: 'x\u0000y' }] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items[0]!.problem!.length).toBeLessThanOrEqual(301);
  });

  it('OC-5 WH-1 an item longer than a webhook body may be (256 KiB as JSON) is an invalid item, never an Occurrence input', () => {
    // `{"id":"at","pad":""}` is 20 bytes: the first item is exactly at the bound, the second one byte over it
    const padded = (id: string, extra: number) => ({ id, pad: 'x'.repeat(MAX_POLL_ITEM_BYTES - 20 + extra) });
    expect(Buffer.byteLength(JSON.stringify(padded('at', 0)))).toBe(MAX_POLL_ITEM_BYTES);
    const result = readPollPage({ items: [padded('at', 0), padded('ov', 1), { id: 'small' }] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items.map((i) => [i.itemId, i.problem])).toEqual([
      ['at', null],
      ['ov', `the item is ${MAX_POLL_ITEM_BYTES + 1} bytes as JSON; at most ${MAX_POLL_ITEM_BYTES}`],
      ['small', null],
    ]);
    expect(MAX_POLL_ITEM_BYTES).toBe(256 * 1024);
  });

  it('PO-1 an upstream answering a bare array is read with itemsPointer "", and a list of bare ids with idPointer ""', () => {
    const bare = readPollPage([{ id: 'a' }, { id: 'b' }], { ...binding, itemsPointer: '' });
    expect(bare.ok && bare.page.items.map((i) => i.itemId)).toEqual(['a', 'b']);
    const ids = readPollPage({ items: ['x', 7] }, { ...binding, idPointer: '' });
    expect(ids.ok && ids.page.items.map((i) => [i.itemId, i.problem])).toEqual([
      ['x', null],
      ['7', null],
    ]);
  });

  it('OC-4 PO-4 each item carries the digest of its parsed payload, one without an id too; none when out of bounds', () => {
    let deep: unknown = { id: 'deep' };
    for (let i = 0; i < 70; i++) deep = { id: 'deep', inner: deep };
    const result = readPollPage({ items: [{ id: 'a', v: 1 }, { v: 1, id: 'a' }, { v: 2 }, deep] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items.map((i) => i.digest)).toEqual([
      payloadDigest({ id: 'a', v: 1 }),
      payloadDigest({ id: 'a', v: 1 }),
      payloadDigest({ v: 2 }),
      null,
    ]);
  });

  it('reads a numeric next cursor as its decimal text and an absent one as null', () => {
    expect(readPollPage({ items: [], next: 42 }, binding)).toEqual({ ok: true, page: { items: [], nextCursor: '42' } });
    expect(readPollPage({ items: [] }, binding)).toEqual({ ok: true, page: { items: [], nextCursor: null } });
  });

  it('PO-1 a set secret is named by id, never carried; polls keep it, a rotation names the new one and nothing else moves', () => {
    const polled = eventsOf([], poll([item(0, 'a')], 'c1'));
    const first = eventsOf(polled, setSecret('s-1'));
    expect(first).toEqual([
      {
        type: 'PollSecretSet',
        data: {
          ...ids,
          at: AT,
          actor: 'ops',
          secretId: 's-1',
          replaced: null,
          state: {
            ...polled[0]!.data.state,
            seq: 2,
            secret: { secretId: 's-1', setAt: AT, origin: 'https://feed.test' },
          },
        },
      },
    ]);
    const afterPoll = stateAfter([...polled, ...first], poll([item(0, 'b')], 'c2', { basedOnSeq: 2 }));
    expect(afterPoll).toMatchObject({ cursor: 'c2', secret: { secretId: 's-1' } });
    const failed = stateAfter([...polled, ...first], failedPoll(2));
    expect(failed).toMatchObject({ cursor: 'c1', secret: { secretId: 's-1' }, consecutiveFailures: 1 });
    const rotated = eventsOf([...polled, ...first], setSecret('s-2'));
    expect(rotated[0]!.type === 'PollSecretSet' && rotated[0]!.data.replaced).toBe('s-1');
    // a fetch based on the state before the rotation records nothing: the next poll sends the new secret
    spec
      .given([...polled, ...first, ...rotated])
      .when(poll([item(0, 'b')], 'c2', { basedOnSeq: 2 }))
      .then([]);
  });

  it('PO-1 SEC-2 a secret goes only to the origin it was set for: another host, scheme or port is not sent it', () => {
    const ref = { secretId: 's-1', setAt: AT, origin: 'https://feed.test' };
    expect(secretGoesTo(ref, `${URL_A}?page=2`)).toBe(true);
    expect(secretGoesTo(ref, 'https://feed.test:443/b')).toBe(true);
    for (const elsewhere of [
      'https://evil.test/a',
      'http://feed.test/a',
      'https://feed.test:8443/a',
      'https://feed.test.evil.test/a',
    ])
      expect([elsewhere, secretGoesTo(ref, elsewhere)]).toEqual([elsewhere, false]);
    // set before secrets were bound to an origin
    expect(secretGoesTo({ secretId: 's-0', setAt: AT }, 'https://evil.test/a')).toBe(true);
  });
});
