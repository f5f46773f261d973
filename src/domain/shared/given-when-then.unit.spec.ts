import type { Decider } from './decider.js';
import { IllegalStateError } from './errors.js';
import { deciderSpec } from './given-when-then.js';
import { reject } from './result.js';

type Counted = { type: 'Counted'; data: { n: number } };
const counter: Decider<number, Counted, { by: number }> = {
  initialState: 0,
  evolve: (state, event) => state + event.data.n,
  decide: (command, state) => {
    if (command.by < 0) throw new IllegalStateError('negative');
    if (state + command.by > 3) return reject('too_many', { currentRevision: state });
    return command.by === 0 ? [] : [{ type: 'Counted', data: { n: command.by } }];
  },
};
const spec = deciderSpec(counter);
const counted = (n: number): Counted => ({ type: 'Counted', data: { n } });

describe('given/when/then helper', () => {
  it('passes on the expected events, rejection code, rejection fields, error and state', () => {
    spec
      .given([counted(1)])
      .when({ by: 1 })
      .then([counted(1)]);
    spec
      .given([counted(3)])
      .when({ by: 1 })
      .then('too_many');
    spec
      .given([counted(3)])
      .when({ by: 1 })
      .thenRejects('too_many', { currentRevision: 3 });
    spec.given().when({ by: -1 }).thenThrows(IllegalStateError);
    expect(
      spec
        .given([counted(1)])
        .when({ by: 2 })
        .thenState(),
    ).toBe(3);
  });
  it('fails on other events, a missing rejection, other rejection fields or no error', () => {
    expect(() =>
      spec
        .given()
        .when({ by: 1 })
        .then([counted(2)]),
    ).toThrow();
    expect(() => spec.given().when({ by: 1 }).then('too_many')).toThrow();
    expect(() =>
      spec
        .given([counted(3)])
        .when({ by: 1 })
        .then([]),
    ).toThrow();
    expect(() =>
      spec
        .given([counted(3)])
        .when({ by: 1 })
        .thenRejects('too_many', { currentRevision: 1 }),
    ).toThrow();
    expect(() => spec.given().when({ by: 0 }).thenThrows(IllegalStateError)).toThrow();
  });
});
