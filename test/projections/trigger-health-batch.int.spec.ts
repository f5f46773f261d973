import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { observed } from '../../src/domain/occurrence/occurrence.fixtures.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { freshPglite } from '../support/databases.js';
import { clearTables, dumpTables, seededRandom } from './harness.js';

/**
 * OP-3: the set-based batch fold of trigger health (with the Occurrence explorer it counts off, in the
 * same transaction) must leave exactly the rows of folding event by event, whatever the batch
 * boundaries, replays of whole batches, redeliveries, out-of-order observation times, decisions in the
 * same batch as their observation, unknown tenants and interleaved revisions.
 */
function scenario(seed: number): RecordedEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const events: RecordedEvent[] = [];
  const open: Array<{ tenant: string; occurrenceId: string }> = [];
  const revisions = new Map<string, number>();
  let position = 0;
  const push = (type: string, data: unknown, tenant: string | null) =>
    events.push({
      id: randomUUID(),
      streamId: `s-${position}`,
      revision: 0,
      position: ++position * 7,
      type,
      schemaVersion: 1,
      data,
      metadata: tenant ? { tenant } : {},
      recordedAt: '',
      hash: '',
      prevHash: null,
    });
  for (let i = 0; i < 90; i++) {
    const roll = random();
    const tenant = pick(['acme', 'globex']);
    const triggerId = pick(['t-1', 't-2', 't-3']);
    if (roll < 0.1) {
      const revision = (revisions.get(`${tenant}/${triggerId}`) ?? 0) + 1;
      revisions.set(`${tenant}/${triggerId}`, revision);
      push(
        'TriggerRevised',
        { tenant, triggerId, revision, definition: { type: 'webhook', missionId: 'm-1', enabled: random() < 0.8 } },
        tenant,
      );
    } else if (roll < 0.55 || open.length === 0) {
      const occurrenceId = `o-${i}-${Math.floor(random() * 1e6)}`;
      // Observation times collide and go backwards so the "last occurrence" tie-break matters.
      const observedAt = new Date(Date.UTC(2026, 2, 1, 10, 0, Math.floor(random() * 6))).toISOString();
      const o = observed({ tenant, occurrenceId, triggerId, observedAt }, `d-${i}`);
      push('OccurrenceObserved', o, tenant);
      // A redelivery of the same Occurrence now and then: counted once (OC-3).
      if (random() < 0.1) push('OccurrenceObserved', { ...o, payloadDigest: 'other' }, tenant);
      open.push({ tenant, occurrenceId });
    } else {
      const [target] = open.splice(Math.floor(random() * open.length), 1);
      const metadataTenant = random() < 0.2 ? null : target!.tenant;
      const decidedAt = '2026-03-01T11:00:00.456Z';
      const firedAt = new Date(Date.UTC(2026, 2, 1, 11, 0, Math.floor(random() * 50))).toISOString();
      if (random() < 0.5)
        push(
          'OccurrenceAdmitted',
          { occurrenceId: target!.occurrenceId, executionId: `e-${i}`, firedAt, decidedAt, request: {} },
          metadataTenant,
        );
      // BA-2/AD-4: every fourth refusal is a suppression, counted by reason on its own (no extra draw, so
      // each seed's scenario is otherwise unchanged).
      else if (i % 4 !== 0)
        push(
          'OccurrenceBlocked',
          {
            occurrenceId: target!.occurrenceId,
            reason: pick(['budget_exhausted', 'trigger_disabled', 'internal_error']),
            evidence: {},
            decidedAt,
          },
          metadataTenant,
        );
      else
        push(
          'OccurrenceSuppressed',
          {
            occurrenceId: target!.occurrenceId,
            reason: pick(['guard_false', 'unchanged']),
            evidence: {},
            decidedAt,
          },
          metadataTenant,
        );
    }
  }
  return events;
}

const dump = (sql: SqlClient) => dumpTables(sql, occurrenceViews);
const clear = (sql: SqlClient) => clearTables(sql, occurrenceViews);

describe('OP-1 OP-3 trigger health folded in batches equals folded one by one', () => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await freshPglite([...eventStoreMigrations, ...occurrenceViews.migrations]);
  });
  afterAll(async () => {
    await sql?.close();
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'seed %i: random batch sizes, with some batches replayed after a lost checkpoint',
    async (seed) => {
      const events = scenario(seed);
      await clear(sql);
      await sql.transaction(async (tx) => {
        for (const event of events) await occurrenceViews.apply(event, tx);
      });
      const oneByOne = await dump(sql);

      await clear(sql);
      const random = seededRandom(seed * 7919);
      for (let at = 0; at < events.length;) {
        const batch = events.slice(at, (at += 1 + Math.floor(random() * 25)));
        await sql.transaction((tx) => occurrenceViews.applyBatch!(batch, tx));
        if (random() < 0.3) await sql.transaction((tx) => occurrenceViews.applyBatch!(batch, tx));
      }
      const batched = await dump(sql);

      expect(batched).toEqual(oneByOne);
      // The scenario must exercise what the batch fold merges: counts, decisions and last occurrences.
      const rows = (
        oneByOne as {
          rm_trigger_health: Array<{ admitted: number; blocked: object; suppressed: object; last_status: string }>;
        }
      ).rm_trigger_health;
      expect(rows.some((r) => r.admitted > 0) && rows.some((r) => Object.keys(r.blocked).length > 0)).toBe(true);
      expect(rows.some((r) => Object.keys(r.suppressed).length > 0)).toBe(true);
      expect(rows.map((r) => r.last_status)).toContain('admitted');
      expect(rows.some((r) => r.last_status === 'blocked' || r.last_status === 'suppressed')).toBe(true);
      // …and against the events themselves: one count per Occurrence, however often it was delivered.
      const distinct = new Set(
        events
          .filter((e) => e.type === 'OccurrenceObserved')
          .map((e) =>
            JSON.stringify([(e.data as { tenant: string }).tenant, (e.data as { occurrenceId: string }).occurrenceId]),
          ),
      );
      expect(rows.reduce((sum, r) => sum + (r as unknown as { observed: number }).observed, 0)).toBe(distinct.size);
    },
  );
});

const LIFECYCLE = [
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionRetryScheduled',
  'ExecutionRedelivered',
  'ExecutionDeadLettered',
  'ExecutionSettled',
  'RecoveryRequested',
] as const;

/**
 * Admissions, then lifecycle events in any order, valid or not for the execution's state (stale ones move
 * nothing), for Triggers with and without a health row; an execution's events keep growing positions.
 */
function executionScenario(seed: number): RecordedEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const events: RecordedEvent[] = [];
  let position = 0;
  const push = (type: string, data: unknown, tenant: string) =>
    events.push({
      id: randomUUID(),
      streamId: `s-${position}`,
      revision: 0,
      position: ++position * 7,
      type,
      schemaVersion: 1,
      data,
      metadata: { tenant },
      recordedAt: '',
      hash: '',
      prevHash: null,
    });
  // t-3 of acme never gets a health row: its executions still move the map, never a counter.
  for (const [tenant, triggerId] of [
    ['acme', 't-1'],
    ['acme', 't-2'],
    ['globex', 't-1'],
  ] as const)
    push(
      'TriggerRevised',
      { tenant, triggerId, revision: 1, definition: { type: 'manual', missionId: 'm-1', enabled: true } },
      tenant,
    );
  const executions: Array<{ tenant: string; triggerId: string; executionId: string }> = [];
  for (let i = 0; i < 120; i++) {
    if (executions.length < 4 || random() < 0.25) {
      const tenant = pick(['acme', 'globex']);
      const triggerId = pick(['t-1', 't-2', 't-3']);
      const occurrenceId = `o-${i}`;
      push('OccurrenceObserved', observed({ tenant, occurrenceId, triggerId }, `d-${i}`), tenant);
      const executionId = `e-${i}`;
      push(
        'OccurrenceAdmitted',
        { occurrenceId, executionId, firedAt: '2026-03-01T11:00:00.000Z', request: {} },
        tenant,
      );
      executions.push({ tenant, triggerId, executionId });
      continue;
    }
    const target = pick(executions);
    push(
      pick(LIFECYCLE),
      { ...target, missionId: 'm-1', generation: 1, attempt: 1, at: '2026-03-01T11:00:01.000Z' },
      target.tenant,
    );
  }
  return events;
}

describe('OP-1 OP-3 EX-4 trigger health execution counts folded in batches equal folding one by one', () => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await freshPglite([...eventStoreMigrations, ...occurrenceViews.migrations]);
  });
  afterAll(async () => {
    await sql?.close();
  });

  it.each([1, 2, 3, 4, 5, 6])('seed %i: random batches, some replayed', async (seed) => {
    const events = executionScenario(seed);
    await clear(sql);
    await sql.transaction(async (tx) => {
      for (const event of events) await occurrenceViews.apply(event, tx);
    });
    const oneByOne = await dump(sql);

    await clear(sql);
    const random = seededRandom(seed * 104729);
    for (let at = 0; at < events.length;) {
      const batch = events.slice(at, (at += 1 + Math.floor(random() * 40)));
      await sql.transaction((tx) => occurrenceViews.applyBatch!(batch, tx));
      if (random() < 0.3) await sql.transaction((tx) => occurrenceViews.applyBatch!(batch, tx));
    }
    expect(await dump(sql)).toEqual(oneByOne);

    // The scenario reaches every counted state, and an execution of a Trigger without a health row.
    const rows = (oneByOne as { rm_trigger_health: Array<Record<string, number>> }).rm_trigger_health;
    for (const column of ['executions_claimed', 'executions_retrying', 'executions_dead', 'executions_repending'])
      expect(rows.some((r) => r[column]! > 0)).toBe(true);
    const map = (oneByOne as { rm_trigger_health_executions: Array<{ trigger_id: string }> })
      .rm_trigger_health_executions;
    expect(map.some((r) => r.trigger_id === 't-3')).toBe(true);
  });
});
