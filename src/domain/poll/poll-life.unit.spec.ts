import { initialPollState, pollStateFor, secretGoesTo } from './poll-events.js';
import {
  AT,
  eventsOf,
  failedPoll,
  ids,
  invalid,
  item,
  poll,
  setCursor,
  setSecret,
  spec,
  stateAfter,
  URL_A,
} from './poll.fixtures.js';

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

describe('PO-1 poll secrets', () => {
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
