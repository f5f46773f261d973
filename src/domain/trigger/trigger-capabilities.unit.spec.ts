import { CAPABILITIES } from './trigger-authority.js';
import { DEFAULT_WINDOW_SECONDS } from './trigger-definition.js';
import {
  spec,
  ALL_CAPABILITIES,
  CLAIMED_CAPABILITIES,
  body,
  revise,
  toggle,
  stored,
  revised,
} from './trigger.fixtures.js';

describe('Trigger', () => {
  describe('CP-1 capabilities', () => {
    const refusal = (capability: string) => `needs capability ${capability}, which this deployment does not claim`;
    /** Every block whose capability a deployment may not claim, each entry used once or twice. */
    const everyBlock = body({
      dedupe: { windowSeconds: 3600 },
      coalesce: [
        { match: { pointer: '/t', equals: 'x' }, mode: 'latest', windowMs: 10 },
        { match: { pointer: '/t', equals: 'y' }, mode: 'latest', windowMs: 10 },
      ],
      batch: { size: 5 },
      overlap: 'skip',
      queueByPointer: '/repo',
      guard: { pointer: '/action', equals: 'opened' },
      prefilters: [
        { id: 'unchanged', version: 1, resourcePointer: '/r', digestPointer: '/d' },
        { id: 'relevant', version: 1, pointer: '/k', in: ['a'] },
      ],
      causality: { maxDepth: 2 },
    });

    it('names each unsupported capability with the entry that needs it, one error per entry', () =>
      spec
        .given()
        .when(revise({ capabilities: [CAPABILITIES.manual], definition: everyBlock }))
        .thenRejects('capability_unsupported', {
          detail:
            'unsupported capabilities: wf.external-event-initiation, wf.dedupe-windows, wf.coalescing, wf.batching, ' +
            'wf.overlap, wf.guards, wf.prefilters, wf.causality',
          errors: [
            { pointer: '/type', message: refusal('wf.external-event-initiation') },
            { pointer: '/dedupe/windowSeconds', message: refusal('wf.dedupe-windows') },
            { pointer: '/coalesce/0', message: refusal('wf.coalescing') },
            { pointer: '/coalesce/1', message: refusal('wf.coalescing') },
            { pointer: '/batch', message: refusal('wf.batching') },
            { pointer: '/overlap', message: refusal('wf.overlap') },
            { pointer: '/queueByPointer', message: refusal('wf.overlap') },
            { pointer: '/guard', message: refusal('wf.guards') },
            { pointer: '/prefilters/0', message: refusal('wf.prefilters') },
            { pointer: '/prefilters/1', message: refusal('wf.prefilters') },
            { pointer: '/causality', message: refusal('wf.causality') },
          ],
        }));
    it('given the claimed list of this deployment, refuses exactly the blocks that do not act yet', () =>
      spec
        .given()
        .when(revise({ capabilities: CLAIMED_CAPABILITIES, definition: everyBlock }))
        .thenRejects('capability_unsupported', {
          detail: 'unsupported capabilities: wf.dedupe-windows',
          errors: ([['/dedupe/windowSeconds', 'wf.dedupe-windows']] as const).map(([pointer, capability]) => ({
            pointer,
            message: refusal(capability),
          })),
        }));
    it('a member left at its default needs no capability, even when written out', () =>
      spec
        .given()
        .when(
          revise({
            capabilities: [CAPABILITIES.webhook],
            definition: body({
              dedupe: { windowSeconds: DEFAULT_WINDOW_SECONDS },
              coalesce: [],
              prefilters: [],
              overlap: 'allow',
              queueByPointer: null,
              guard: null,
              batch: null,
              causality: null,
            }),
          }),
        )
        .then([revised(1, stored(body()))]));
    it('accepts overlap skip and resource lanes on this deployment (BA-3, AD-5 act at admission)', () =>
      spec
        .given()
        .when(
          revise({ capabilities: CLAIMED_CAPABILITIES, definition: body({ overlap: 'skip', queueByPointer: '/r' }) }),
        )
        .then([revised(1, stored(body({ overlap: 'skip', queueByPointer: '/r' })))]));
    describe('given a revision stored before its blocks were refused', () => {
      const old = revised(1, stored(body({ guard: { pointer: '/a', exists: true }, enabled: false })));
      it('still loads, and disabling it needs no capability', () =>
        spec
          .given([revised(1, stored(body({ guard: { pointer: '/a', exists: true } })))])
          .when(toggle(false, { capabilities: [] }))
          .then([
            revised(2, stored(body({ guard: { pointer: '/a', exists: true }, enabled: false })), 1, { reason: 'ops' }),
          ]));
      it('enabling it is refused naming the entry, so the guard is never run ignored', () =>
        spec
          .given([old])
          // A deployment that does not claim guards (as before BA-2 landed).
          .when(toggle(true, { capabilities: CLAIMED_CAPABILITIES.filter((c) => c !== CAPABILITIES.guards) }))
          .thenRejects('capability_unsupported', {
            detail: 'unsupported capabilities: wf.guards',
            errors: [{ pointer: '/guard', message: refusal('wf.guards') }],
          }));
    });
    it('requires the capability of each type', () => {
      for (const [type, extra] of [
        ['schedule', { schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' } }],
        [
          'poll',
          {
            poll: {
              connector: 'http-json@1',
              url: 'https://x.test/i',
              everySeconds: 5,
              itemsPointer: '/items',
              idPointer: '/id',
            },
          },
        ],
        ['manual', {}],
      ] as const) {
        const claimed = ALL_CAPABILITIES.filter((c) => c !== CAPABILITIES[type]);
        spec
          .given()
          .when(revise({ capabilities: claimed, definition: { missionId: 'm-1', type, ...extra } }))
          .then('capability_unsupported');
      }
    });
  });
});
