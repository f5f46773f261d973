import { IllegalStateError } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { isRejection } from '../shared/result.js';
import type { MissionGrants } from '../mission/mission-grants.js';
import type { DefinedMission } from '../mission/mission.js';
import { CAPABILITIES } from './trigger-authority.js';
import { DEFAULT_WINDOW_SECONDS, validateTriggerDefinition, type TriggerDefinition } from './trigger-definition.js';
import {
  triggerDecider,
  type DeleteTrigger,
  type ReviseTrigger,
  type SetTriggerEnabled,
  type TriggerDeleted,
  type TriggerRevised,
} from './trigger.js';

const spec = deciderSpec(triggerDecider);
const AT = '2026-03-01T10:00:00.000Z';
const ALL_CAPABILITIES = Object.values(CAPABILITIES);
/** What the deployment claims today (src/adapters/config/capabilities.ts; the HTTP suite checks the real list). */
const CLAIMED_CAPABILITIES = [CAPABILITIES.manual, CAPABILITIES.webhook, CAPABILITIES.schedule, CAPABILITIES.overlap];

const grants: MissionGrants = {
  maxExecutionsPerHour: 60,
  maxConcurrent: 2,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};
const mission = (over: Partial<DefinedMission> = {}): DefinedMission => ({
  status: 'defined',
  tenant: 'acme',
  missionId: 'm-1',
  revision: 1,
  state: 'active',
  grants,
  updatedAt: AT,
  ...over,
});
const body = (over: Record<string, unknown> = {}) => ({
  missionId: 'm-1',
  type: 'webhook',
  source: { sourceId: 'gh' },
  ...over,
});

const revise = (over: Partial<ReviseTrigger> = {}): ReviseTrigger => ({
  type: 'ReviseTrigger',
  tenant: 'acme',
  triggerId: 't-1',
  definition: body(),
  reason: 'wire up',
  actor: 'ops',
  at: AT,
  mission: mission(),
  capabilities: ALL_CAPABILITIES,
  pins: { tzdataVersion: '2025b' },
  ...over,
});
const toggle = (enabled: boolean, over: Partial<SetTriggerEnabled> = {}): SetTriggerEnabled => ({
  type: 'SetTriggerEnabled',
  tenant: 'acme',
  triggerId: 't-1',
  enabled,
  reason: 'ops',
  actor: 'ops',
  at: AT,
  mission: mission(),
  capabilities: ALL_CAPABILITIES,
  ...over,
});
const remove = (over: Partial<DeleteTrigger> = {}): DeleteTrigger => ({
  type: 'DeleteTrigger',
  tenant: 'acme',
  triggerId: 't-1',
  reason: 'gone',
  actor: 'ops',
  at: AT,
  ...over,
});

/** The stored definition of `raw` with constraints inherited from `grants` unless given. */
const stored = (
  raw: Record<string, unknown> = body(),
  constraints: Partial<TriggerDefinition['constraints']> = {},
): TriggerDefinition => {
  const result = validateTriggerDefinition(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const { maxCausalDepth: _, ...inherited } = grants;
  return { ...result.value, constraints: { ...inherited, ...result.value.constraints, ...constraints } };
};
const revised = (
  revision: number,
  definition = stored(),
  dedupeEpoch = 1,
  extra: Partial<TriggerRevised['data']> = {},
): TriggerRevised => ({
  type: 'TriggerRevised',
  data: {
    tenant: 'acme',
    triggerId: 't-1',
    revision,
    definition,
    dedupeEpoch,
    reason: 'wire up',
    actor: 'ops',
    at: AT,
    ...extra,
  },
});
const deleted = (revision: number): TriggerDeleted => ({
  type: 'TriggerDeleted',
  data: { tenant: 'acme', triggerId: 't-1', revision, reason: 'gone', actor: 'ops', at: AT },
});

describe('Trigger', () => {
  describe('TR-1 revisions hold the whole definition', () => {
    it('creates revision 1 with defaults filled and constraints inherited from the Mission', () =>
      spec
        .given()
        .when(revise({ expectedRevision: 0 }))
        .then([revised(1)]));
    it('records explicit constraints as given and inherits the rest', () => {
      const raw = body({ constraints: { maxConcurrent: 1, resourceScopes: ['repo:acme/api'] } });
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw))]);
    });
    it('pins the tz data of a schedule revision', () => {
      const raw = {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'interval@1', expression: 'PT1H', timezone: 'UTC', start: '2026-01-01T00:00:00Z' },
      };
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw), 1, { pins: { tzdataVersion: '2025b' } })]);
    });
    it('returns [] for an unchanged definition (re-applying a file appends nothing)', () =>
      spec
        .given([revised(1)])
        .when(revise())
        .then([]));
    it('EX-4 makes a changed delivery block a new revision holding the whole policy', () => {
      const raw = body({ delivery: { maxRuntimeSeconds: 30 } });
      const state = spec
        .given([revised(1)])
        .when(revise({ definition: raw }))
        .thenState();
      expect(state.status === 'defined' && state.definition.delivery).toEqual({
        maxAttempts: 5,
        backoff: { initialSeconds: 1, multiplier: 2, maxSeconds: 300 },
        claimWithinSeconds: 60,
        maxRuntimeSeconds: 30,
        budgetUnits: null,
      });
    });
    describe('given a revision recorded before the delivery block existed', () => {
      const { delivery: _, ...withoutDelivery } = stored();
      const legacy = revised(1, withoutDelivery as TriggerDefinition);
      it('then its state holds the default policy, as if written out (TR-1)', () => {
        const state = [legacy].reduce(triggerDecider.evolve, triggerDecider.initialState);
        expect(state.status === 'defined' && state.definition.delivery).toEqual(stored().delivery);
      });
      it('when the same file is applied again, then nothing is appended (TR-5: no new revision)', () =>
        spec.given([legacy]).when(revise()).then([]));
    });
    it('TR-4 makes a new Mission binding a new revision', () => {
      const other = mission({ missionId: 'm-2' });
      spec
        .given([revised(1)])
        .when(revise({ definition: body({ missionId: 'm-2' }), mission: other }))
        .then([revised(2, stored(body({ missionId: 'm-2' })))]);
    });
    it('rejects invalid content with pointers', () =>
      spec
        .given()
        .when(revise({ definition: body({ type: 'schedule', source: undefined }) }))
        .thenRejects('invalid_definition', { errors: [{ pointer: '/schedule', message: 'schedule is required' }] }));
  });

  describe('TR-3 optimistic concurrency', () => {
    it('rejects a create over an existing Trigger with the current revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 0, definition: body({ enabled: false }) }))
        .thenRejects('revision_conflict', { currentRevision: 1 }));
    it('rejects a stale writer with the current revision', () =>
      spec
        .given([revised(1), revised(2, stored(body({ overlap: 'skip' })))])
        .when(revise({ expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
    it('accepts the matching revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 1, definition: body({ overlap: 'skip' }) }))
        .then([revised(2, stored(body({ overlap: 'skip' })))]));
  });

  describe('the bound Mission', () => {
    it('must exist', () =>
      spec
        .given()
        .when(revise({ mission: { status: 'absent' } }))
        .thenRejects('mission_not_found', {
          errors: [{ pointer: '/missionId', message: 'mission "m-1" does not exist' }],
        }));
    it('must not be terminal', () => {
      spec
        .given()
        .when(revise({ mission: mission({ state: 'cancelled' }) }))
        .then('mission_terminal');
      spec
        .given()
        .when(revise({ mission: mission({ state: 'revoked' }) }))
        .then('mission_terminal');
    });
    it('may be paused (admission blocks later)', () =>
      spec
        .given()
        .when(revise({ mission: mission({ state: 'paused' }) }))
        .then([revised(1)]));
    it('must be the Mission the definition names (a handler bug otherwise)', () =>
      spec
        .given()
        .when(revise({ mission: mission({ missionId: 'm-9' }) }))
        .thenThrows(IllegalStateError));
  });

  describe('TR-2 authority widening', () => {
    const widening = (constraints: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const result = spec
        .given()
        .when(revise({ definition: body({ constraints, ...extra }) }))
        .result();
      return isRejection(result) && result.code === 'authority_widening'
        ? result.errors?.map((e) => e.pointer)
        : result;
    };
    it.each([
      ['maxExecutionsPerHour', { maxExecutionsPerHour: 61 }],
      ['maxConcurrent', { maxConcurrent: 3 }],
      ['classification', { classification: 'confidential' }],
      ['acceptLowerTrust', { acceptLowerTrust: true }],
    ])('rejects %s above the grant', (field, constraints) =>
      expect(widening(constraints)).toEqual([`/constraints/${field}`]),
    );
    it('names each resource scope outside the grants, including a wider glob', () =>
      expect(widening({ resourceScopes: ['repo:acme/api', 'repo:evil/x', 'repo:*'] })).toEqual([
        '/constraints/resourceScopes/1',
        '/constraints/resourceScopes/2',
      ]));
    it('rejects a causal depth envelope above the Mission (CA-3)', () =>
      expect(widening({}, { causality: { maxDepth: 5 } })).toEqual(['/causality/maxDepth']));
    it('names every widened field at once', () =>
      expect(widening({ maxConcurrent: 9, classification: 'restricted' })).toEqual([
        '/constraints/maxConcurrent',
        '/constraints/classification',
      ]));
    it('accepts constraints equal to or narrower than the grants', () => {
      const { maxCausalDepth: _, ...equal } = grants;
      const raw = body({
        constraints: { ...equal, maxConcurrent: 1, resourceScopes: ['repo:acme/api', 'repo:acme/*'] },
        causality: { maxDepth: 4 },
      });
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw))]);
    });
  });

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
          detail:
            'unsupported capabilities: wf.dedupe-windows, wf.coalescing, wf.batching, wf.guards, wf.prefilters, wf.causality',
          errors: (
            [
              ['/dedupe/windowSeconds', 'wf.dedupe-windows'],
              ['/coalesce/0', 'wf.coalescing'],
              ['/coalesce/1', 'wf.coalescing'],
              ['/batch', 'wf.batching'],
              ['/guard', 'wf.guards'],
              ['/prefilters/0', 'wf.prefilters'],
              ['/prefilters/1', 'wf.prefilters'],
              ['/causality', 'wf.causality'],
            ] as const
          ).map(([pointer, capability]) => ({ pointer, message: refusal(capability) })),
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
          .when(toggle(true, { capabilities: CLAIMED_CAPABILITIES }))
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

  describe('TR-5 dedupe epoch', () => {
    it('starts at 1 and is retained by default', () =>
      spec
        .given([revised(1)])
        .when(revise({ definition: body({ overlap: 'skip' }) }))
        .then([revised(2, stored(body({ overlap: 'skip' })), 1)]));
    it('increments on a revision declaring reset', () => {
      const raw = body({ dedupe: { onRevision: 'reset' } });
      spec
        .given([revised(1)])
        .when(revise({ definition: raw }))
        .then([revised(2, stored(raw), 2)]);
    });
    it('is not reset again when the same reset definition is re-applied', () => {
      const raw = body({ dedupe: { onRevision: 'reset' } });
      spec
        .given([revised(1), revised(2, stored(raw), 2)])
        .when(revise({ definition: raw }))
        .then([]);
    });
  });

  describe('enable and disable are revisions', () => {
    it('disables with the same definition except enabled', () =>
      spec
        .given([revised(1)])
        .when(toggle(false))
        .then([revised(2, { ...stored(), enabled: false }, 1, { reason: 'ops' })]));
    it('returns [] when already in that state', () =>
      spec
        .given([revised(1)])
        .when(toggle(true))
        .then([]));
    it('keeps the dedupe epoch and pins even under onRevision reset', () => {
      const raw = {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' },
        dedupe: { onRevision: 'reset' },
      };
      const pins = { tzdataVersion: '2024a' };
      spec
        .given([revised(3, stored(raw), 2, { pins })])
        .when(toggle(false))
        .then([revised(4, { ...stored(raw), enabled: false }, 2, { pins, reason: 'ops' })]);
    });
    it('refuses to enable under a terminal Mission, but always allows disabling', () => {
      const off = revised(2, { ...stored(), enabled: false });
      spec
        .given([revised(1), off])
        .when(toggle(true, { mission: mission({ state: 'revoked' }) }))
        .then('mission_terminal');
      spec
        .given([revised(1)])
        .when(toggle(false, { mission: mission({ state: 'revoked' }) }))
        .then([revised(2, { ...stored(), enabled: false }, 1, { reason: 'ops' })]);
    });
    it('refuses an unknown or deleted Trigger', () => {
      spec.given().when(toggle(false)).then('trigger_not_found');
      spec
        .given([revised(1), deleted(2)])
        .when(toggle(false))
        .thenRejects('trigger_deleted', { currentRevision: 2 });
    });
    it('honours expectedRevision', () =>
      spec
        .given([revised(1), revised(2)])
        .when(toggle(false, { expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
  });

  describe('delete', () => {
    it('is a revision; deleting again returns []', () => {
      spec
        .given([revised(1)])
        .when(remove())
        .then([deleted(2)]);
      spec
        .given([revised(1), deleted(2)])
        .when(remove())
        .then([]);
    });
    it('refuses an unknown Trigger and a stale writer', () => {
      spec.given().when(remove()).then('trigger_not_found');
      spec
        .given([revised(1), revised(2)])
        .when(remove({ expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 });
    });
    it('allows re-creation, continuing revisions and the dedupe epoch (no replay of old events)', () =>
      spec
        .given([revised(1), deleted(2)])
        .when(revise({ expectedRevision: 0 }))
        .then([revised(3)]));
    it('folds into a deleted state', () => {
      expect(
        spec
          .given([revised(1)])
          .when(remove())
          .thenState(),
      ).toMatchObject({ status: 'defined', revision: 2, deleted: true });
    });
  });
});
