import { explainOccurrence, type ExplainedOccurrence } from './why-explain.js';

const view = (status: string, reason: string | null, evidence: Record<string, unknown>): ExplainedOccurrence => ({
  occurrenceId: 'o-1',
  triggerId: 't-1',
  triggerRevision: 2,
  kind: 'webhook',
  status,
  reason,
  observedAt: '2026-01-01T00:00:00.000Z',
  decidedAt: '2026-01-01T00:00:01.000Z',
  executionId: null,
  evidence,
});

/** Every reason the service produces today, with the evidence its decision records, and the sentence it reads as. */
const CASES: Array<[string, string, Record<string, unknown>, string]> = [
  ['blocked', 'trigger_deleted', { triggerId: 't-1', currentRevision: 3 }, 'Trigger t-1 was deleted before admission'],
  [
    'blocked',
    'trigger_disabled',
    { triggerId: 't-1', currentRevision: 3 },
    'Trigger t-1 was disabled (revision 3) at admission',
  ],
  [
    'blocked',
    'revision_superseded',
    { triggerRevision: 2, currentRevision: 3 },
    'bound to revision 2, but the Trigger is at revision 3 and does not accept older ones',
  ],
  [
    'blocked',
    'mission_paused',
    { missionId: 'm', missionState: 'paused', missionRevision: 4 },
    'Mission m is paused (revision 4)',
  ],
  [
    'blocked',
    'mission_cancelled',
    { missionId: 'm', missionState: 'cancelled', missionRevision: 4 },
    'Mission m is cancelled (revision 4)',
  ],
  ['blocked', 'mission_revoked', { missionId: 'm', missionState: 'absent' }, 'Mission m does not exist'],
  [
    'blocked',
    'lower_trust_not_allowed',
    { authState: 'unverified', triggerAcceptsLowerTrust: false, missionAcceptsLowerTrust: true },
    'the delivery was unverified and lower trust is not accepted (Trigger false, Mission true)',
  ],
  [
    'blocked',
    'key_revoked',
    { sourceId: 's', keyId: 'k', keyGeneration: 1 },
    'key k (generation 1) of source s that authenticated it is revoked',
  ],
  [
    'blocked',
    'scope_violation',
    { violation: 'classification', classification: 'secret', ceiling: 'internal' },
    'classification secret is above the ceiling internal',
  ],
  [
    'blocked',
    'scope_violation',
    {
      violation: 'resource_scope',
      resourceRefs: ['repo:x/y'],
      triggerScopes: ['repo:a/*'],
      missionScopes: ['repo:a/*'],
    },
    'resources ["repo:x/y"] are outside the scopes (Trigger ["repo:a/*"], Mission ["repo:a/*"])',
  ],
  ['blocked', 'causal_depth_exceeded', { depth: 5, maxDepth: 4 }, 'causal depth 5 is over the maximum 4'],
  [
    'blocked',
    'causal_depth_exceeded',
    { depth: 2, maxDepth: 4, entries: 160, maxEntries: 128 },
    'its causes hold 160 references, over the 128 one execution may carry',
  ],
  [
    'blocked',
    'causal_depth_exceeded',
    { depth: 3, maxDepth: 4, truncated: true, hops: 1 },
    'its recorded chain shows 1 of its 3 hops (cut), so it is taken as too deep',
  ],
  [
    'blocked',
    'causal_loop',
    { triggerId: 't-1', via: [{ triggerId: 't-1' }] },
    'Trigger t-1 is already among its causes ([{"triggerId":"t-1"}])',
  ],
  [
    'suppressed',
    'guard_false',
    { triggerRevision: 2, clause: '/guard', pointer: '/action', test: 'equals' },
    '/action equals "opened" was false',
  ],
  ['suppressed', 'guard_false', { triggerRevision: 2, clause: '/guard' }, 'the guard clause /guard was false'],
  [
    'blocked',
    'guard_fault',
    { clause: '/guard', pointer: '/action', test: 'equals', fault: 'through_non_object', at: '/a', found: 'string' },
    '/action equals "opened" could not be evaluated: through_non_object at /a (found string)',
  ],
  [
    'blocked',
    'guard_fault',
    { pointer: '/lane', problem: 'queue key is not a string, number or boolean' },
    '/lane: queue key is not a string, number or boolean',
  ],
  [
    'suppressed',
    'unchanged',
    { filter: 'unchanged', version: 1, resource: 'r', digest: 'd', baseline: { occurrenceId: 'o-0', digest: 'd' } },
    'filter unchanged@1: resource r still has digest d, as at its baseline (occurrence o-0)',
  ],
  [
    'suppressed',
    'irrelevant',
    { filter: 'relevant', version: 1, pointer: '/kind', value: 'x' },
    'filter relevant@1: /kind is "x", not one of the listed values',
  ],
  [
    'suppressed',
    'outside_window',
    { filter: 'window', version: 1, local: '2026-01-01T03:00:00+01:00', day: 'thu', timezone: 'Europe/Berlin' },
    'filter window@1: accepted 2026-01-01T03:00:00+01:00 (thu, Europe/Berlin) is outside the window',
  ],
  [
    'blocked',
    'filter_inconclusive',
    { filter: 'unchanged', version: 1, problem: 'digest missing' },
    'filter unchanged@1 could not decide: digest missing',
  ],
  [
    'blocked',
    'overlap_skip',
    { triggerId: 't-1', overlap: 'skip', runningExecutionId: 'e-1' },
    'execution e-1 of Trigger t-1 was still running (overlap: skip)',
  ],
  [
    'blocked',
    'budget_exhausted',
    { windowStart: '2026-01-01T00:00:00.000Z', consumed: 10, limit: 10 },
    '10 of 10 executions this hour were used (window from 2026-01-01T00:00:00.000Z)',
  ],
  ['blocked', 'concurrency_limit', { active: 2, limit: 2 }, '2 of 2 concurrent executions were active'],
  ['coalesced', 'duplicate', { into: 'o-9', windowMs: 5000 }, 'into=o-9, windowMs=5000'],
];

describe('reveille why: a sentence per decision (OP-2, AD-3)', () => {
  it.each(CASES)('AD-3 %s %s reads in plain words', (status, reason, evidence, sentence) => {
    const definition = { guard: { pointer: '/action', equals: 'opened' } };
    const [headline, ...rest] = explainOccurrence(view(status, reason, evidence), definition);
    expect(headline).toBe(`${status}: ${reason} — ${sentence}`);
    // Every evidence field is printed below the sentence too.
    for (const name of Object.keys(evidence)) expect(rest).toContainEqual(expect.stringMatching(`^  ${name}: `));
  });

  it('OP-2 admitted names its execution; observed says it is not decided yet', () => {
    const admitted = { ...view('admitted', null, { prefilters: [{ baseline: null }] }), executionId: 'e-7' };
    expect(explainOccurrence(admitted)[0]).toBe('admitted: execution e-7 was requested, every prefilter passed');
    const observed = { ...view('observed', null, {}), decidedAt: null };
    const lines = explainOccurrence(observed);
    expect(lines[0]).toBe('observed: not decided yet — it waits for admission');
    expect(lines).toContain('observed 2026-01-01T00:00:00.000Z, not decided yet');
  });

  it('DD-4 OP-2 a reused identity says which use it is', () => {
    const reused = { ...view('admitted', null, {}), executionId: 'e-1', dedupeIdentity: { key: 'd-1', generation: 2 } };
    expect(explainOccurrence(reused)).toContain(
      "its identity's use number 3: each earlier one was decided and out of its dedupe window",
    );
    const first = { ...view('admitted', null, {}), executionId: 'e-1', dedupeIdentity: { key: 'd-1' } };
    expect(explainOccurrence(first).join('\n')).not.toContain('use number');
  });

  it('OP-2 a guard literal is named only when the bound revision can be read', () => {
    const evidence = { clause: '/guard/all/1', pointer: '/n', test: 'lte' };
    expect(explainOccurrence(view('suppressed', 'guard_false', evidence))[0]).toBe(
      'suppressed: guard_false — /n lte was false',
    );
    const definition = {
      guard: {
        all: [
          { pointer: '/a', exists: true },
          { pointer: '/n', lte: 5 },
        ],
      },
    };
    expect(explainOccurrence(view('suppressed', 'guard_false', evidence), definition)[0]).toBe(
      'suppressed: guard_false — /n lte 5 was false',
    );
  });

  it('OP-2 statuses without a sentence of their own (batched, subscribed) print their evidence fields', () => {
    expect(explainOccurrence(view('batched', 'batched', { batchId: 'b-1', position: 3 }))[0]).toBe(
      'batched: batched — batchId=b-1, position=3',
    );
    expect(explainOccurrence(view('subscribed', null, {}))[0]).toBe('subscribed: no reason recorded');
  });
});
