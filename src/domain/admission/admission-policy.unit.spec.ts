import { defaultDelivery } from '../trigger/trigger-blocks.js';
import { IllegalStateError } from '../shared/errors.js';
import { MAX_MERGED_ANCESTRY_ENTRIES } from '../causality/causal-link.js';
import { definition, facts, mission, observed, trigger } from '../occurrence/occurrence.fixtures.js';
import { admissionPolicy, type AdmissionFacts } from './admission-policy.js';
import { effectiveAuthority } from './effective-authority.js';
import { REASON_CODES } from './reasons.js';

const verdict = (over: Partial<AdmissionFacts> = {}, occurrence = observed()) =>
  admissionPolicy(occurrence, facts(over));
const reasonOf = (over: Partial<AdmissionFacts> = {}, occurrence = observed()) => {
  const result = verdict(over, occurrence);
  return result.admitted ? 'admitted' : result.reason;
};

describe('AD-3 reason codes', () => {
  it('lists at least every code of the requirement, each once', () => {
    const required =
      'duplicate payload_conflict replay trigger_disabled trigger_deleted revision_superseded mission_paused mission_cancelled mission_revoked key_revoked scope_violation authority_widening budget_exhausted concurrency_limit overlap_skip guard_false guard_fault causal_loop causal_depth_exceeded unchanged irrelevant outside_window filter_inconclusive lower_trust_not_allowed rate_limited';
    // DD-5 adds `coalesced`: the reason of an Occurrence decided as an earlier member of a coalesced group.
    expect([...REASON_CODES].sort()).toEqual([...required.split(' '), 'coalesced'].sort());
  });
});

/** AD-2 opt-in: the limit refuses at admission for good, as before claims took slots. */
const blocking = trigger({}, { constraints: { ...trigger().definition.constraints, onConcurrencyLimit: 'block' } });

describe('AD-2 admission policy', () => {
  it('admits with the effective limits and the Trigger lane', () =>
    expect(verdict()).toEqual({
      admitted: true,
      lane: 'trigger:t-1',
      limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
      slotTakenAt: 'claim',
      delivery: defaultDelivery(),
    }));

  describe('EX-4/EX-5 given a Trigger revision with its own delivery policy', () => {
    const delivery = {
      maxAttempts: 2,
      backoff: { initialSeconds: 0.5, multiplier: 3, maxSeconds: 10 },
      claimWithinSeconds: 5,
      maxRuntimeSeconds: 90,
      budgetUnits: 7,
    };
    const admitting = trigger({}, { delivery });
    it('then the verdict carries a copy of it, never the definition object itself', () => {
      const result = verdict({ trigger: admitting });
      if (!result.admitted) throw new Error(result.reason);
      expect(result.delivery).toEqual(delivery);
      expect(result.delivery).not.toBe(admitting.definition.delivery);
      expect(result.delivery.backoff).not.toBe(admitting.definition.delivery.backoff);
    });
    it('then an older revision admitted under acceptOlderRevisions gets the admitting (current) policy', () => {
      const result = verdict({ trigger: trigger({ revision: 3 }, { delivery, acceptOlderRevisions: true }) });
      expect(result.admitted && result.delivery).toEqual(delivery);
    });
  });

  describe('the Trigger still exists, is enabled and the bound revision is eligible', () => {
    it('trigger_deleted when absent or deleted', () => {
      expect(verdict({ trigger: { status: 'absent' } })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'trigger_deleted',
        evidence: { triggerId: 't-1', currentRevision: null },
      });
      expect(reasonOf({ trigger: trigger({ deleted: true, revision: 3 }) })).toBe('trigger_deleted');
    });
    it('trigger_disabled', () => expect(reasonOf({ trigger: trigger({ enabled: false }) })).toBe('trigger_disabled'));
    it('revision_superseded with both revisions as evidence', () =>
      expect(verdict({ trigger: trigger({ revision: 3 }) })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'revision_superseded',
        evidence: { triggerRevision: 2, currentRevision: 3 },
      }));
    it('admits an older revision when the current definition accepts older revisions', () =>
      expect(reasonOf({ trigger: trigger({ revision: 3 }, { acceptOlderRevisions: true }) })).toBe('admitted'));
    it('never follows a Trigger re-bound to another Mission, even when older revisions are accepted', () =>
      expect(reasonOf({ trigger: trigger({ revision: 3 }, { acceptOlderRevisions: true, missionId: 'm-2' }) })).toBe(
        'revision_superseded',
      ));
    it('refuses facts about another Trigger or Mission (a handler bug)', () => {
      expect(() => verdict({ trigger: trigger({ triggerId: 't-9' }) })).toThrow(IllegalStateError);
      expect(() => verdict({ mission: { ...mission(), missionId: 'm-9' } })).toThrow(IllegalStateError);
      expect(() => verdict({ mission: { ...mission(), tenant: 'other' } })).toThrow(IllegalStateError);
    });
  });

  describe('the Mission is not paused, cancelled or revoked (current state, not the state at observation)', () => {
    it.each([
      ['paused', 'mission_paused'],
      ['cancelled', 'mission_cancelled'],
      ['revoked', 'mission_revoked'],
    ] as const)('%s → %s with the Mission state as evidence', (state, reason) =>
      expect(verdict({ mission: mission(state) })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason,
        evidence: { missionId: 'm-1', missionState: state, missionRevision: 3 },
      }),
    );
    it('a missing Mission grants nothing', () =>
      expect(reasonOf({ mission: { status: 'absent' } })).toBe('mission_revoked'));
    it('checks the Trigger before the Mission', () =>
      expect(reasonOf({ trigger: trigger({ enabled: false }), mission: mission('cancelled') })).toBe(
        'trigger_disabled',
      ));
  });

  describe('WH-5 lower trust and WH-3 keys', () => {
    const unverified = observed({ auth: { state: 'unverified', sourceId: 'open' } });
    it('admits unverified evidence only when both the Trigger and the Mission accept lower trust', () => {
      expect(reasonOf({}, unverified)).toBe('admitted');
      expect(reasonOf({ mission: mission('active', { acceptLowerTrust: false }) }, unverified)).toBe(
        'lower_trust_not_allowed',
      );
      expect(
        verdict(
          { trigger: trigger({}, { constraints: { ...trigger().definition.constraints, acceptLowerTrust: false } }) },
          unverified,
        ),
      ).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'lower_trust_not_allowed',
        evidence: { authState: 'unverified', triggerAcceptsLowerTrust: false, missionAcceptsLowerTrust: true },
      });
    });
    it('key_revoked names the key that authenticated the delivery', () =>
      expect(verdict({ keyRevoked: true })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'key_revoked',
        evidence: { sourceId: 'gh', keyId: 'k1', keyGeneration: 1 },
      }));
  });

  describe('TR-2 scope and classification within the intersection of Trigger and Mission', () => {
    it('scope_violation for a resource outside the Trigger scopes, even if the Mission allows it', () =>
      expect(verdict({}, observed({ resourceRefs: ['repo:acme/api', 'repo:acme/web'] }))).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'scope_violation',
        evidence: {
          violation: 'resource_scope',
          resourceRefs: ['repo:acme/web'],
          triggerScopes: ['repo:acme/api'],
          missionScopes: ['repo:acme/*'],
        },
      }));
    it('TR-2 AD-2 given a glob or a dot segment in a resource ref, when decided, then it is outside every scope (scope_violation)', () => {
      const wide = trigger({}, { constraints: { ...definition().constraints, resourceScopes: ['repo:acme/*'] } });
      for (const ref of ['repo:acme/*', 'repo:acme/../evil', 'repo:acme/./api', 'repo:acme/'])
        expect(verdict({ trigger: wide }, observed({ resourceRefs: ['repo:acme/api', ref] }))).toMatchObject({
          reason: 'scope_violation',
          evidence: { resourceRefs: [ref] },
        });
      expect(reasonOf({ trigger: wide }, observed({ resourceRefs: ['repo:acme/api/v2', 'repo:acme/a..b'] }))).toBe(
        'admitted',
      );
    });
    it('scope_violation for a resource the Mission no longer grants', () =>
      expect(reasonOf({ mission: mission('active', { resourceScopes: ['repo:other/*'] }) })).toBe('scope_violation'));
    it('scope_violation for a classification above the tighter ceiling', () =>
      expect(verdict({}, observed({ classification: 'confidential' }))).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'scope_violation',
        evidence: { violation: 'classification', classification: 'confidential', ceiling: 'internal' },
      }));
    it('OC-5: an unknown classification counts as the most restrictive', () =>
      expect(reasonOf({}, observed({ classification: 'mystery' }))).toBe('scope_violation'));
    it('uses the Mission grant when it is tighter than the Trigger', () => {
      expect(reasonOf({ mission: mission('active', { classification: 'public' }) })).toBe('scope_violation');
      expect(verdict({ mission: mission('active', { maxConcurrent: 0 }), trigger: blocking })).toMatchObject({
        reason: 'concurrency_limit',
        evidence: { active: 0, limit: 0 },
      });
    });
  });

  describe('CA-3 causality', () => {
    const child = (depth: number, ancestry: ReturnType<typeof observed>['causal']['ancestry']) =>
      observed({ causal: { parentId: 'p', depth, ancestry } });
    it('causal_depth_exceeded above the Mission depth', () =>
      expect(verdict({}, child(5, 'unknown'))).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'causal_depth_exceeded',
        evidence: { depth: 5, maxDepth: 4 },
      }));
    it('uses the tighter Trigger envelope', () =>
      expect(reasonOf({ trigger: trigger({}, { causality: { maxDepth: 1 } }) }, child(2, 'unknown'))).toBe(
        'causal_depth_exceeded',
      ));
    // A batch's or coalesced group's execution records the union of its members' chains (CA-1), which shows more
    // hops than its depth (the deepest member's): judged by that depth, and by the count bound on references.
    it('judges a union of chains by its depth, and blocks one holding more references than the count bound', () => {
      const refs = (n: number) => Array.from({ length: n }, (_, i) => ({ occurrenceId: `o${i}`, triggerId: `x${i}` }));
      expect(reasonOf({}, child(1, refs(5)))).toBe('admitted');
      expect(reasonOf({}, child(1, refs(MAX_MERGED_ANCESTRY_ENTRIES + 1)))).toBe('causal_depth_exceeded');
    });
    it('causal_loop when the ancestry holds this Trigger (A → B → A)', () =>
      expect(
        verdict(
          {},
          child(1, [
            { occurrenceId: 'o1', triggerId: 't-1' },
            { operationId: 'op', triggerId: 't-b' },
          ]),
        ),
      ).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'causal_loop',
        evidence: { triggerId: 't-1', via: [{ occurrenceId: 'o1', triggerId: 't-1' }] },
      }));
    it('unknown ancestry links to nothing and is not a loop', () =>
      expect(reasonOf({}, child(1, 'unknown'))).toBe('admitted'));
  });

  describe('BA-2 guards (input: action opened, resource api)', () => {
    const guarded = (guard: NonNullable<ReturnType<typeof trigger>['definition']['guard']>, over = {}) =>
      trigger({}, { guard, ...over });
    it('a true guard admits', () =>
      expect(reasonOf({ trigger: guarded({ pointer: '/action', in: ['opened', 'reopened'] }) })).toBe('admitted'));
    it('a false guard suppresses with guard_false, naming the clause that decided and the revision', () =>
      expect(
        verdict({
          trigger: guarded({
            all: [
              { pointer: '/resource/id', exists: true },
              { pointer: '/action', equals: 'closed' },
            ],
          }),
        }),
      ).toEqual({
        admitted: false,
        outcome: 'suppressed',
        reason: 'guard_false',
        evidence: { triggerRevision: 2, clause: '/guard/all/1', pointer: '/action', test: 'equals' },
      }));
    it('a fault blocks with guard_fault, distinct from false (hostile: a string where gt expects a number)', () =>
      expect(verdict({ trigger: guarded({ pointer: '/action', gt: 3 }) })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'guard_fault',
        evidence: {
          triggerRevision: 2,
          clause: '/guard',
          pointer: '/action',
          test: 'gt',
          fault: 'not_a_number',
          found: 'string',
        },
      }));
    it('a pointer through a non-object is a fault, naming where the walk stopped', () =>
      expect(verdict({ trigger: guarded({ pointer: '/action/by', exists: false }) })).toMatchObject({
        outcome: 'blocked',
        reason: 'guard_fault',
        evidence: { fault: 'through_non_object', at: '/action', found: 'string' },
      }));
    it('runs before budget and overlap, so an unwanted Occurrence is never counted against them', () => {
      const full = { windowStart: '2026-03-01T10:00:00.000Z', consumed: 10, alreadyCountedThisOccurrence: false };
      const closed = guarded({ pointer: '/action', equals: 'closed' }, { overlap: 'skip' });
      expect(reasonOf({ trigger: closed, budget: full, triggerRunning: true })).toBe('guard_false');
    });
    it('never overrides authority: a disabled Trigger is still trigger_disabled', () =>
      expect(reasonOf({ trigger: trigger({ enabled: false }, { guard: { pointer: '/action', equals: 'x' } }) })).toBe(
        'trigger_disabled',
      ));
  });

  describe('AD-4 prefilters (input: action opened, resource api)', () => {
    const relevant = { id: 'relevant', version: 1, pointer: '/action', in: ['closed'] };
    const full = { windowStart: '2026-03-01T10:00:00.000Z', consumed: 10, alreadyCountedThisOccurrence: false };
    it('a terminating filter suppresses before budget and overlap', () =>
      expect(
        verdict({
          trigger: trigger({}, { prefilters: [relevant], overlap: 'skip' }),
          budget: full,
          triggerRunning: true,
        }),
      ).toMatchObject({
        admitted: false,
        outcome: 'suppressed',
        reason: 'irrelevant',
        evidence: { filter: 'relevant', index: 0 },
      }));
    it('the guard decides first', () =>
      expect(
        reasonOf({ trigger: trigger({}, { prefilters: [relevant], guard: { pointer: '/action', equals: 'x' } }) }),
      ).toBe('guard_false'));
    it('an inconclusive filter blocks with filter_inconclusive', () =>
      expect(verdict({ trigger: trigger({}, { prefilters: [{ ...relevant, pointer: '/missing' }] }) })).toMatchObject({
        outcome: 'blocked',
        reason: 'filter_inconclusive',
        evidence: { problem: 'value missing' },
      }));
    it('the window reads a schedule at its intended instant, not when it was observed', () => {
      const window = { id: 'window', version: 1, timezone: 'UTC', days: ['sun'], from: '10:00', until: '10:15' };
      const late = observed({ scheduledAt: '2026-03-01T10:10:00.000Z', observedAt: '2026-03-01T10:15:00.000Z' });
      expect(reasonOf({ trigger: trigger({}, { prefilters: [window] }) }, late)).toBe('admitted');
      expect(reasonOf({ trigger: trigger({}, { prefilters: [window] }) }, { ...late, scheduledAt: null })).toBe(
        'outside_window',
      );
    });
  });

  describe('AD-5 lanes and BA-3 overlap', () => {
    const queued = trigger({}, { queueByPointer: '/resource/id' });
    it('queues by the resource key of the input', () =>
      expect(verdict({ trigger: queued })).toMatchObject({ admitted: true, lane: 'resource:api' }));
    it('falls back to the Trigger lane when the key is absent', () =>
      expect(verdict({ trigger: queued }, observed({ input: {} }))).toMatchObject({ lane: 'trigger:t-1' }));
    it('guard_fault when the key is not a scalar', () =>
      expect(verdict({ trigger: queued }, observed({ input: { resource: { id: { nested: 1 } } } }))).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'guard_fault',
        evidence: { pointer: '/resource/id', problem: 'queue key is not a string, number or boolean' },
      }));
    it('overlap_skip while a previous execution runs', () => {
      const skipping = trigger({}, { overlap: 'skip' });
      expect(reasonOf({ trigger: skipping, triggerRunning: true })).toBe('overlap_skip');
      expect(reasonOf({ trigger: skipping, triggerRunning: false })).toBe('admitted');
      expect(reasonOf({ triggerRunning: true })).toBe('admitted');
    });
  });

  describe('budget and concurrency', () => {
    const budget = (consumed: number, alreadyCountedThisOccurrence = false) => ({
      windowStart: '2026-03-01T10:00:00.000Z',
      consumed,
      alreadyCountedThisOccurrence,
    });
    it('budget_exhausted at the effective hourly limit', () =>
      expect(verdict({ budget: budget(10) })).toEqual({
        admitted: false,
        outcome: 'blocked',
        reason: 'budget_exhausted',
        evidence: { windowStart: '2026-03-01T10:00:00.000Z', consumed: 10, limit: 10 },
      }));
    it('admits an occurrence already counted in this window (retry after a crash)', () =>
      expect(reasonOf({ budget: budget(10, true) })).toBe('admitted'));
    it('concurrency_limit at the effective concurrency for a Trigger that opted into block', () =>
      expect(verdict({ activeExecutions: 1, trigger: blocking })).toMatchObject({
        reason: 'concurrency_limit',
        evidence: { active: 1, limit: 1 },
      }));
    it('queues by default: admitted at the limit, its slot to be taken by the claim', () => {
      expect(verdict({ activeExecutions: 5 })).toMatchObject({ admitted: true, slotTakenAt: 'claim' });
      expect(verdict({ activeExecutions: 0, trigger: blocking })).toMatchObject({
        admitted: true,
        slotTakenAt: 'admission',
      });
    });
  });
});

describe('TR-2 effective authority', () => {
  it('is the intersection of the Trigger constraints and the current Mission grants', () =>
    expect(
      effectiveAuthority(
        { ...trigger().definition, causality: null },
        mission('active', { maxExecutionsPerHour: 5, classification: 'public', acceptLowerTrust: false }).grants,
      ),
    ).toEqual({
      maxExecutionsPerHour: 5,
      maxConcurrent: 1,
      triggerScopes: ['repo:acme/api'],
      missionScopes: ['repo:acme/*'],
      classification: 'public',
      acceptLowerTrust: false,
      maxCausalDepth: 4,
    }));
});
