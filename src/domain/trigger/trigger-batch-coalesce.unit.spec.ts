import { CAPABILITIES } from './trigger-authority.js';
import { batchWithCoalesce } from './trigger-definition.js';
import { ALL_CAPABILITIES, body, revise, revised, spec, stored } from './trigger.fixtures.js';

const batch = { size: 10, maxWaitMs: 60000, partitionPointer: '/repo' };
const coalesce = [{ match: { pointer: '/type', equals: 'health.sample' }, mode: 'latest', windowMs: 5000 }];
const both = [
  { pointer: '/batch', message: 'a Trigger may batch (BA-1) or coalesce (DD-5), not both: drop batch or coalesce' },
];

describe('BA-1 DD-5 a Trigger batches or coalesces, never both', () => {
  it('BA-1 DD-5 a revision with a batch and a coalesce rule is 422 invalid_definition naming /batch', () =>
    spec
      .given()
      .when(revise({ capabilities: ALL_CAPABILITIES, definition: body({ batch, coalesce }) }))
      .thenRejects('invalid_definition', { errors: both }));

  it('BA-1 DD-5 CP-1 a deployment that claims neither names the capabilities first', () =>
    spec
      .given()
      .when(revise({ capabilities: [CAPABILITIES.webhook], definition: body({ batch, coalesce }) }))
      .thenRejects('capability_unsupported', {
        detail: 'unsupported capabilities: wf.coalescing, wf.batching',
        errors: [
          { pointer: '/coalesce/0', message: 'needs capability wf.coalescing, which this deployment does not claim' },
          { pointer: '/batch', message: 'needs capability wf.batching, which this deployment does not claim' },
        ],
      }));

  it('BA-1 DD-5 either alone is accepted', () => {
    spec
      .given()
      .when(revise({ capabilities: ALL_CAPABILITIES, definition: body({ batch }) }))
      .then([revised(1, stored(body({ batch })))]);
    spec
      .given()
      .when(revise({ capabilities: ALL_CAPABILITIES, definition: body({ coalesce }) }))
      .then([revised(1, stored(body({ coalesce })))]);
  });

  it('BA-1 DD-5 a batch with an empty coalesce list, or a null batch with rules, is no conflict', () => {
    expect(batchWithCoalesce({ batch, coalesce: [] } as never)).toEqual([]);
    expect(batchWithCoalesce({ batch: null, coalesce } as never)).toEqual([]);
    expect(batchWithCoalesce({ batch, coalesce } as never)).toEqual(both);
  });
});
