import { validateTriggerDefinition } from './trigger-definition.js';

/** A full PUT body, every block included (only the type's block is part of the binding). */
const apiExample = {
  expectedRevision: 0,
  missionId: 'm-1',
  type: 'webhook',
  enabled: true,
  source: { sourceId: 'gh', eventTypes: ['push'] },
  schedule: {
    engine: 'cron@1',
    expression: '30 2 * * *',
    timezone: 'Europe/Berlin',
    start: '2026-01-01T00:00:00.000Z',
    end: null,
    dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
    missed: { policy: 'catch_up', bound: 5, overflow: 'hold' },
  },
  poll: {
    connector: 'http-json@1',
    url: 'http://127.0.0.1:9000/items',
    everySeconds: 60,
    itemsPointer: '/items',
    idPointer: '/id',
    cursorParam: 'cursor',
    nextCursorPointer: '/next_cursor',
    onInvalidItem: 'quarantine',
  },
  dedupe: {
    strategy: 'delivery-id@1',
    keyPointer: null,
    subjectPointer: null,
    windowSeconds: 604800,
    onRevision: 'retain',
  },
  coalesce: [{ match: { pointer: '/type', equals: 'health.sample' }, mode: 'latest', windowMs: 5000 }],
  batch: { size: 10, maxWaitMs: 60000, partitionPointer: '/repo' },
  overlap: 'allow',
  queueByPointer: '/resource/id',
  guard: { all: [{ pointer: '/action', in: ['opened', 'reopened'] }] },
  prefilters: [{ id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' }],
  causality: { maxDepth: 3 },
  constraints: {
    maxExecutionsPerHour: 10,
    maxConcurrent: 1,
    resourceScopes: ['repo:acme/api'],
    classification: 'internal',
    acceptLowerTrust: false,
  },
  reason: 'initial',
};

const pointers = (raw: unknown) => {
  const result = validateTriggerDefinition(raw);
  return result.ok ? [] : result.errors.map((e) => e.pointer);
};

describe('TR-1 trigger definitions', () => {
  it('accepts a full PUT body and keeps only the block of its type', () => {
    const result = validateTriggerDefinition(apiExample);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.source).toEqual({ sourceId: 'gh', eventTypes: ['push'] });
    expect(result.value.schedule).toBeNull();
    expect(result.value.poll).toBeNull();
    expect(result.value.constraints).toEqual(apiExample.constraints);
    expect(result.value).not.toHaveProperty('expectedRevision');
    expect(result.value).not.toHaveProperty('reason');
  });

  it('fills every default of a minimal manual Trigger', () => {
    expect(validateTriggerDefinition({ missionId: 'm-1', type: 'manual' })).toEqual({
      ok: true,
      value: {
        missionId: 'm-1',
        type: 'manual',
        enabled: true,
        source: null,
        schedule: null,
        poll: null,
        dedupe: {
          strategy: 'manual-key@1',
          keyPointer: null,
          subjectPointer: null,
          windowSeconds: 604800,
          onRevision: 'retain',
        },
        coalesce: [],
        batch: null,
        overlap: 'allow',
        queueByPointer: null,
        guard: null,
        prefilters: [],
        causality: null,
        constraints: {},
        acceptOlderRevisions: false,
        delivery: {
          maxAttempts: 5,
          backoff: { initialSeconds: 1, multiplier: 2, maxSeconds: 300 },
          claimWithinSeconds: 60,
          maxRuntimeSeconds: null,
          budgetUnits: null,
        },
      },
    });
  });

  it('normalizes the schedule block through the schedule module', () => {
    const result = validateTriggerDefinition({
      missionId: 'm-1',
      type: 'schedule',
      schedule: { engine: 'cron@1', expression: ' 0 * * * * ', timezone: 'UTC' },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.schedule).toMatchObject({
      expression: '0 * * * *',
      dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
    });
    expect(result.value.dedupe.strategy).toBe('schedule-instant@1');
  });

  describe('invalid definitions point at the faulty fields (422 invalid_definition)', () => {
    it('refuses a body that is not an object', () => expect(pointers([])).toEqual(['']));
    it('names an unknown type and a missing missionId', () =>
      expect(pointers({ type: 'email' })).toEqual(['/type', '/missionId']));
    it('requires the block of each type', () => {
      expect(pointers({ missionId: 'm-1', type: 'webhook' })).toEqual(['/source']);
      expect(pointers({ missionId: 'm-1', type: 'schedule' })).toEqual(['/schedule']);
      expect(pointers({ missionId: 'm-1', type: 'poll' })).toEqual(['/poll']);
    });
    it('rebases schedule errors under /schedule', () =>
      expect(
        pointers({
          missionId: 'm-1',
          type: 'schedule',
          schedule: { engine: 'cron@1', expression: '61 * * * *', timezone: 'Mars/Base' },
        }),
      ).toEqual(['/schedule/expression', '/schedule/timezone']));
    it('checks the poll block shape', () =>
      expect(
        pointers({
          missionId: 'm-1',
          type: 'poll',
          poll: {
            connector: 'ftp@1',
            url: 'file:///etc/passwd',
            everySeconds: 0,
            itemsPointer: 'items',
            idPointer: '/id',
            nextCursorPointer: 3,
          },
        }),
      ).toEqual([
        '/poll/connector',
        '/poll/url',
        '/poll/everySeconds',
        '/poll/itemsPointer',
        '/poll/nextCursorPointer',
      ]));
    it('PO-1 "" (the whole answer, the whole item) is a valid itemsPointer and idPointer; "items" is not a pointer', () => {
      const poll = { connector: 'http-json@1', url: 'https://feed.test/a', everySeconds: 5 };
      const bare = validateTriggerDefinition({
        missionId: 'm-1',
        type: 'poll',
        poll: { ...poll, itemsPointer: '', idPointer: '' },
      });
      expect(bare.ok && [bare.value.poll?.itemsPointer, bare.value.poll?.idPointer]).toEqual(['', '']);
      expect(
        pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, itemsPointer: '', idPointer: 'id' } }),
      ).toEqual(['/poll/idPointer']);
    });
    it('PO-1 SEC-4 a poll url holding credentials is refused: definitions are shown to operators and kept in the log', () => {
      const poll = { connector: 'http-json@1', everySeconds: 5, itemsPointer: '/items', idPointer: '/id' };
      for (const url of ['https://user:secret@feed.test/a', 'https://token@feed.test/a', 'http://:pw@feed.test/'])
        expect([url, pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, url } })]).toEqual([
          url,
          ['/poll/url'],
        ]);
      expect(pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, url: 'https://feed.test/a?x=1' } })).toEqual(
        [],
      );
    });
    it('PO-1 poll.auth names a bearer secret kept outside the definition: an inline secret or another type is refused', () => {
      const poll = {
        connector: 'http-json@1',
        url: 'https://feed.test/a',
        everySeconds: 5,
        itemsPointer: '/items',
        idPointer: '/id',
      };
      const accepted = validateTriggerDefinition({
        missionId: 'm-1',
        type: 'poll',
        poll: { ...poll, auth: { type: 'bearer' } },
      });
      expect(accepted.ok && accepted.value.poll?.auth).toEqual({ type: 'bearer' });
      const none = validateTriggerDefinition({ missionId: 'm-1', type: 'poll', poll });
      expect(none.ok && none.value.poll?.auth).toBeNull();
      expect(
        pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, auth: { type: 'bearer', token: 'ghp_inline' } } }),
      ).toEqual(['/poll/auth/token']);
      expect(pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, auth: { type: 'basic' } } })).toEqual([
        '/poll/auth/type',
      ]);
      expect(pointers({ missionId: 'm-1', type: 'poll', poll: { ...poll, auth: 'Bearer x' } })).toEqual(['/poll/auth']);
    });
    it('checks constraints member by member', () =>
      expect(
        pointers({
          missionId: 'm-1',
          type: 'manual',
          constraints: {
            maxExecutionsPerHour: -1,
            maxConcurrent: 'two',
            resourceScopes: ['*/x'],
            classification: 'secret',
            acceptLowerTrust: 1,
          },
        }),
      ).toEqual([
        '/constraints/maxExecutionsPerHour',
        '/constraints/maxConcurrent',
        '/constraints/resourceScopes/0',
        '/constraints/classification',
        '/constraints/acceptLowerTrust',
      ]));
    it('checks dedupe, overlap, queue key, guard, prefilters, batch, coalesce and causality', () =>
      expect(
        pointers({
          missionId: 'm-1',
          type: 'webhook',
          source: { sourceId: 'gh' },
          dedupe: { strategy: 'payload-key@1', onRevision: 'forget', windowSeconds: 0 },
          overlap: 'queue',
          queueByPointer: 'resource',
          guard: { pointer: '/a', matches: 'x.*' },
          prefilters: [
            { id: 'unchanged', version: 0 },
            { id: 'x', version: 1, baselinePointer: 'nope' },
          ],
          batch: {},
          coalesce: [{ match: { pointer: '/type' }, mode: 'first', windowMs: 10 }],
          causality: { maxDepth: 100 },
        }),
      ).toEqual([
        '/dedupe/keyPointer',
        '/dedupe/windowSeconds',
        '/dedupe/onRevision',
        '/coalesce/0/match',
        '/coalesce/0/mode',
        '/batch',
        '/overlap',
        '/queueByPointer',
        '/guard/matches',
        '/prefilters/0/version',
        '/prefilters/1/id',
        '/causality/maxDepth',
      ]));
    it('refuses unknown members rather than ignoring a misspelt policy', () =>
      expect(pointers({ missionId: 'm-1', type: 'manual', enabeld: false, dedupe: { onRevison: 'reset' } })).toEqual([
        '/enabeld',
        '/dedupe/onRevison',
      ]));
    it('refuses a dedupe strategy the type cannot use', () => {
      expect(
        pointers({ missionId: 'm-1', type: 'manual', dedupe: { strategy: 'payload-key@1', keyPointer: '/k' } }),
      ).toEqual(['/dedupe/strategy']);
      expect(
        pointers({
          missionId: 'm-1',
          type: 'schedule',
          schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' },
          dedupe: { subjectPointer: '/s' },
        }),
      ).toEqual(['/dedupe/subjectPointer']);
    });
  });

  it('reads "delivery-id@1" on a manual Trigger as its native key', () => {
    const result = validateTriggerDefinition({
      missionId: 'm-1',
      type: 'manual',
      dedupe: { strategy: 'delivery-id@1' },
    });
    expect(result.ok && result.value.dedupe.strategy).toBe('manual-key@1');
  });

  it('accepts nested guards and payload-key dedupe with a subject', () => {
    const result = validateTriggerDefinition({
      missionId: 'm-1',
      type: 'webhook',
      source: { sourceId: 'gh' },
      dedupe: { strategy: 'payload-key@1', keyPointer: '/id', subjectPointer: '/repo' },
      guard: { any: [{ not: { pointer: '/draft', equals: true } }, { pointer: '/label', exists: true }] },
    });
    expect(result.ok).toBe(true);
  });
});
