import { ValidationError } from '../shared/errors.js';
import { isRejection } from '../shared/result.js';
import type { MissionState } from '../mission/mission.js';
import { CAPABILITIES } from '../trigger/trigger-authority.js';
import type { DedupePolicy } from '../trigger/trigger-definition.js';
import { triggerDecider, type ReviseTrigger, type TriggerState } from '../trigger/trigger.js';
import {
  dedupeIdentityHash,
  deriveDeliveryKey,
  manualIdentity,
  occurrenceIdFor,
  pollIdentity,
  scheduleIdentity,
  webhookIdentity,
  type DedupeIdentity,
} from './dedupe-identity.js';

const webhookTrigger = (dedupeEpoch = 1, strategy: DedupePolicy['strategy'] = 'delivery-id@1') => ({
  triggerId: 't-1',
  dedupeEpoch,
  definition: { dedupe: { strategy } },
});
const hashOf = (identity: DedupeIdentity) => dedupeIdentityHash(identity);

describe('DD-1 dedupe identity', () => {
  it('binds every member into the canonical tuple', () =>
    expect(webhookIdentity('acme', webhookTrigger(), 'gh', 'd-1', 'repo:acme/api')).toEqual({
      v: 1,
      tenant: 'acme',
      triggerId: 't-1',
      epoch: 1,
      principal: 'source:gh',
      subject: 'repo:acme/api',
      strategy: 'delivery-id@1',
      key: 'd-1',
    }));

  it('hashes the canonical form (SHA-256 hex), independent of member order', () => {
    const identity = webhookIdentity('acme', webhookTrigger(), 'gh', 'd-1', null);
    const reordered = Object.fromEntries(Object.entries(identity).reverse()) as unknown as DedupeIdentity;
    expect(hashOf(identity)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOf(reordered)).toBe(hashOf(identity));
    expect(occurrenceIdFor(identity)).toBe(hashOf(identity));
  });

  it('keeps the same external id from two sources distinct', () =>
    expect(hashOf(webhookIdentity('acme', webhookTrigger(), 'gh', 'd-1', null))).not.toBe(
      hashOf(webhookIdentity('acme', webhookTrigger(), 'stripe', 'd-1', null)),
    ));

  it('keeps tenants, Triggers, subjects and strategies apart', () => {
    const base = hashOf(webhookIdentity('acme', webhookTrigger(), 'gh', 'd-1', null));
    expect(hashOf(webhookIdentity('other', webhookTrigger(), 'gh', 'd-1', null))).not.toBe(base);
    expect(hashOf(webhookIdentity('acme', { ...webhookTrigger(), triggerId: 't-2' }, 'gh', 'd-1', null))).not.toBe(
      base,
    );
    expect(hashOf(webhookIdentity('acme', webhookTrigger(), 'gh', 'd-1', 'repo:x'))).not.toBe(base);
    expect(hashOf(webhookIdentity('acme', webhookTrigger(1, 'payload-key@1'), 'gh', 'd-1', null))).not.toBe(base);
  });

  describe('TR-5 revisions', () => {
    it('a revision that retains the namespace keeps the same identity, so an old event does not replay', () =>
      expect(hashOf(webhookIdentity('acme', webhookTrigger(1), 'gh', 'd-1', null))).toBe(
        hashOf(webhookIdentity('acme', webhookTrigger(1), 'gh', 'd-1', null)),
      ));
    it('a revision that resets the namespace (epoch + 1) gives a new identity', () =>
      expect(hashOf(webhookIdentity('acme', webhookTrigger(2), 'gh', 'd-1', null))).not.toBe(
        hashOf(webhookIdentity('acme', webhookTrigger(1), 'gh', 'd-1', null)),
      ));
  });

  it('manual: the Idempotency-Key is the identity; a new key is a new occurrence', () => {
    const trigger = { triggerId: 't-1', dedupeEpoch: 1 };
    expect(manualIdentity('acme', trigger, 'k-1')).toMatchObject({
      principal: 'manual',
      strategy: 'manual-key@1',
      key: 'k-1',
      subject: null,
    });
    expect(hashOf(manualIdentity('acme', trigger, 'k-1'))).toBe(hashOf(manualIdentity('acme', trigger, 'k-1')));
    expect(hashOf(manualIdentity('acme', trigger, 'k-2'))).not.toBe(hashOf(manualIdentity('acme', trigger, 'k-1')));
  });

  it('SC-3 schedule: one identity per canonical UTC instant and epoch, however the instant is written', () => {
    const a = scheduleIdentity('acme', { triggerId: 't-1' }, 1, '2026-03-29T03:30:00+02:00');
    expect(a).toMatchObject({
      principal: 'schedule',
      strategy: 'schedule-instant@1',
      key: '2026-03-29T01:30:00.000Z',
      epoch: 1,
    });
    expect(hashOf(scheduleIdentity('acme', { triggerId: 't-1' }, 1, '2026-03-29T01:30:00Z'))).toBe(hashOf(a));
    expect(hashOf(scheduleIdentity('acme', { triggerId: 't-1' }, 2, '2026-03-29T01:30:00Z'))).not.toBe(hashOf(a));
    expect(() => scheduleIdentity('acme', { triggerId: 't-1' }, 1, 'tomorrow')).toThrow(ValidationError);
  });

  it('PO-2 poll items use the poll principal and the Trigger strategy', () =>
    expect(pollIdentity('acme', webhookTrigger(3, 'poll-item@1'), 'item-9', null)).toMatchObject({
      principal: 'poll',
      strategy: 'poll-item@1',
      key: 'item-9',
      epoch: 3,
    }));

  it('refuses an empty key', () =>
    expect(() => manualIdentity('acme', { triggerId: 't-1', dedupeEpoch: 1 }, '')).toThrow(ValidationError));
});

describe('TR-5 through Trigger revisions (hostile: a revision change does not replay)', () => {
  const AT = '2026-03-01T10:00:00.000Z';
  const grants = {
    maxExecutionsPerHour: 5,
    maxConcurrent: 1,
    resourceScopes: [],
    classification: 'internal',
    acceptLowerTrust: false,
    maxCausalDepth: 2,
  } as const;
  const mission: MissionState = {
    status: 'defined',
    tenant: 'acme',
    missionId: 'm-1',
    revision: 1,
    state: 'active',
    grants: { ...grants, resourceScopes: [] },
    updatedAt: AT,
  };
  const revise = (onRevision: 'retain' | 'reset', sourceId: string): ReviseTrigger => ({
    type: 'ReviseTrigger',
    tenant: 'acme',
    triggerId: 't-1',
    reason: 'r',
    actor: 'ops',
    at: AT,
    mission,
    capabilities: Object.values(CAPABILITIES),
    pins: { tzdataVersion: 'x' },
    definition: { missionId: 'm-1', type: 'webhook', source: { sourceId }, dedupe: { onRevision } },
  });
  const identityAfter = (...commands: ReviseTrigger[]) => {
    const state = commands.reduce<TriggerState>((s, c) => {
      const events = triggerDecider.decide(c, s);
      if (isRejection(events)) throw new Error(events.code);
      return events.reduce(triggerDecider.evolve, s);
    }, triggerDecider.initialState);
    if (state.status !== 'defined') throw new Error('absent');
    return hashOf(webhookIdentity('acme', state, 'gh', 'd-1', null));
  };
  it('retain: the same external event keeps its identity across a revision', () =>
    expect(identityAfter(revise('retain', 'gh'), revise('retain', 'gh-v2'))).toBe(
      identityAfter(revise('retain', 'gh')),
    ));
  it('reset: the revision opens a new namespace', () =>
    expect(identityAfter(revise('retain', 'gh'), revise('reset', 'gh-v2'))).not.toBe(
      identityAfter(revise('retain', 'gh')),
    ));
});

describe('DD-1 deriving the key of a delivery', () => {
  const policy = (over: Partial<DedupePolicy> = {}): DedupePolicy => ({
    strategy: 'delivery-id@1',
    keyPointer: null,
    subjectPointer: null,
    windowSeconds: 60,
    onRevision: 'retain',
    ...over,
  });
  it('uses the delivery id by default and needs one', () => {
    expect(deriveDeliveryKey(policy(), 'd-1', {})).toEqual({ ok: true, key: 'd-1', subject: null });
    expect(deriveDeliveryKey(policy(), null, {})).toMatchObject({ ok: false });
  });
  it('reads a payload key: strings as is, other values as canonical JSON', () => {
    const byKey = policy({ strategy: 'payload-key@1', keyPointer: '/id' });
    expect(deriveDeliveryKey(byKey, 'ignored', { id: 'evt-1' })).toEqual({ ok: true, key: 'evt-1', subject: null });
    expect(deriveDeliveryKey(byKey, 'ignored', { id: { b: 1, a: 2 } })).toEqual({
      ok: true,
      key: '{"a":2,"b":1}',
      subject: null,
    });
    expect(deriveDeliveryKey(byKey, 'ignored', { id: '' })).toMatchObject({ ok: false });
    expect(deriveDeliveryKey(byKey, 'd-1', {})).toEqual({
      ok: false,
      pointer: '/id',
      message: 'the dedupe key is missing from the payload',
    });
  });
  it('requires the subject when the policy names one', () => {
    const bySubject = policy({ subjectPointer: '/repo' });
    expect(deriveDeliveryKey(bySubject, 'd-1', { repo: 'acme/api' })).toEqual({
      ok: true,
      key: 'd-1',
      subject: 'acme/api',
    });
    expect(deriveDeliveryKey(bySubject, 'd-1', { repo: null })).toMatchObject({ ok: false, pointer: '/repo' });
  });
});
