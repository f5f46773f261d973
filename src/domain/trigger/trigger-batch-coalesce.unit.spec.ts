import { CAPABILITIES } from './trigger-authority.js';
import { ALL_CAPABILITIES, body, revise, revised, spec, stored } from './trigger.fixtures.js';

const batch = { size: 10, maxWaitMs: 60000, partitionPointer: '/repo' };
const coalesce = [{ match: { pointer: '/type', equals: 'health.sample' }, mode: 'latest', windowMs: 5000 }];

describe('BA-1 DD-5 a Trigger may coalesce and batch (coalescing first, batching second)', () => {
  it('BA-1 DD-5 a revision with a batch and a coalesce rule is accepted as written (api.md Trigger PUT example)', () =>
    spec
      .given()
      .when(revise({ capabilities: ALL_CAPABILITIES, definition: body({ batch, coalesce }) }))
      .then([revised(1, stored(body({ batch, coalesce })))]));

  it('BA-1 DD-5 CP-1 a deployment that claims neither still names both capabilities', () =>
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

  it('BA-1 DD-5 CP-1 a deployment claiming batching but not coalescing names only wf.coalescing', () =>
    spec
      .given()
      .when(
        revise({
          capabilities: ALL_CAPABILITIES.filter((c) => c !== CAPABILITIES.coalescing),
          definition: body({ batch, coalesce }),
        }),
      )
      .thenRejects('capability_unsupported', {
        detail: 'unsupported capabilities: wf.coalescing',
        errors: [
          { pointer: '/coalesce/0', message: 'needs capability wf.coalescing, which this deployment does not claim' },
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
});
