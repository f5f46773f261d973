import { initialPollState, type PollEvent } from './poll-events.js';
import { acceptedItems, nextPollDelaySeconds, pollDecider, pollHealth, replanDelaySeconds } from './poll.js';
import {
  AT,
  eventsOf,
  failedPoll,
  ids,
  invalid,
  item,
  poll,
  setCursor,
  spec,
  stateAfter,
  URL_A,
  URL_B,
} from './poll.fixtures.js';

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
