import { randomUUID } from 'node:crypto';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { OccurrenceAdmitted } from '../../src/domain/occurrence/occurrence-events.js';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import { executionsProjection } from '../../src/projections/executions/executions.projection.js';
import { pendingExecutionsProjection } from '../../src/projections/pending-executions/pending-executions.projection.js';
import type { Projection } from '../../src/projections/runner/projection.js';
import { learnParameterTypes, mergedScript } from '../../src/projections/runner/statement-merge.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';
import { admittedEvent, occurrence } from './fixtures.js';
import { clearTables, type DbKind, dumpTables, seededRandom } from './harness.js';

const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, second)).toISOString();
const E = { code: 'boom', message: 'failed' };

/** One execution's lifecycle, as the command side may write it (some paths retry, die, settle or recover). */
function lifecycleOf(random: () => number, second: number): Array<[string, Record<string, unknown>]> {
  const life = (generation: number, attempt: number) => ({ generation, attempt, at: at(second) });
  const claimed = (g: number, a: number, fence: number) =>
    ['ExecutionClaimed', { ...life(g, a), fence, consumerId: `w-${fence}` }] as [string, Record<string, unknown>];
  const done = (g: number, a: number, fence: number) =>
    [
      'ExecutionCompleted',
      { ...life(g, a), fence, outcome: 'succeeded', retryable: false, error: null, receipt: { ok: true } },
    ] as [string, Record<string, unknown>];
  const roll = random();
  if (roll < 0.15) return [];
  if (roll < 0.45) return [claimed(1, 1, 1), done(1, 1, 1)];
  if (roll < 0.6)
    return [
      claimed(1, 1, 1),
      ['ExecutionCompleted', { ...life(1, 1), fence: 1, outcome: 'failed', retryable: true, error: E, receipt: null }],
      ['ExecutionRetryScheduled', { ...life(1, 1), nextAttemptAt: at(second + 5) }],
      ['ExecutionRedelivered', { ...life(2, 2), claimBy: at(second + 30) }],
      claimed(2, 2, 2),
      done(2, 2, 2),
    ];
  if (roll < 0.7)
    return [
      claimed(1, 1, 1),
      ['ExecutionSettled', { ...life(1, 1), settlementId: 's-1', decision: 'noncommitted', fence: 1 }],
    ];
  if (roll < 0.85)
    return [
      ['ExecutionRedelivered', { ...life(1, 2), claimBy: at(second + 30) }],
      ['ExecutionDeadLettered', { ...life(1, 2), reason: 'unclaimed', attempts: 2, lastError: null }],
      ...(random() < 0.5
        ? ([
            [
              'RecoveryRequested',
              {
                ...life(2, 1),
                reason: 'operator',
                actor: 'op',
                idempotencyKey: 'k',
                lane: 'default',
                maxConcurrent: 1,
                claimBy: at(second + 60),
                triggerId: 't-1',
                missionId: 'm-1',
              },
            ],
            claimed(2, 1, 2),
          ] as Array<[string, Record<string, unknown>]>)
        : []),
    ];
  // A stale repeat: the same claim twice (the second is at a later position and must move nothing it should not).
  return [claimed(1, 1, 1), claimed(1, 1, 1)];
}

/** Admissions and lifecycles of many executions, interleaved at random, each execution's own order kept. */
function scenario(seed: number): RecordedEvent[] {
  const random = seededRandom(seed);
  const queues: Array<Array<{ type: string; data: unknown }>> = [];
  for (let n = 0; n < 60; n++) {
    const o = occurrence({ triggerId: `t-${n % 3}`, key: `k-${seed}-${n}`, observedAt: at(n % 50) });
    const admitted = admittedEvent(o, `e-${n}`, at(n % 50));
    // Half are queued (the claim takes the slot), half took their slot at admission.
    if (random() < 0.5) (admitted.data as OccurrenceAdmitted['data']).request.slotTakenAt = 'claim';
    const base = { tenant: 'acme', missionId: 'm-1', triggerId: o.triggerId, executionId: `e-${n}` };
    queues.push([
      { type: admitted.type, data: admitted.data },
      ...lifecycleOf(random, n % 50).map(([type, data]) => ({ type, data: { ...base, ...data } })),
    ]);
  }
  const events: RecordedEvent[] = [];
  for (let position = 1; queues.some((q) => q.length > 0); position++) {
    const open = queues.filter((q) => q.length > 0);
    const next = open[Math.floor(random() * open.length)]!.shift()!;
    events.push({
      id: randomUUID(),
      streamId: `s-${position}`,
      revision: 0,
      position: position * 3,
      type: next.type,
      schemaVersion: 1,
      data: next.data,
      metadata: { tenant: 'acme' },
      recordedAt: '',
      hash: '',
      prevHash: null,
    });
  }
  return events;
}

/**
 * OP-3: a batch whose statements run merged (statement-merge.ts: waves of one-row statements as multi-row INSERTs
 * and UPDATE … FROM VALUES, walls kept in place) leaves exactly the rows of running each event's statements one by
 * one, whatever the batch boundaries (and, for executions, replays), for the read models whose statements say which
 * row they touch.
 */
describe.each<DbKind>(['postgres', 'pglite'])('OP-3 merged statement batches equal one by one (%s)', (kind) => {
  const projections: Projection[] = [executionsProjection, pendingExecutionsProjection];
  let sql: SqlClient;
  let schema: string | null = null;
  beforeAll(async () => {
    const migrations = [...eventStoreMigrations, ...projections.flatMap((p) => p.migrations)];
    if (kind === 'postgres') ({ sql, schema } = await freshPostgres(migrations, { max: 2 }));
    else sql = await freshPglite(migrations);
  });
  afterAll(async () => {
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  it.each(projections.flatMap((p) => [1, 2, 3].map((seed) => [p.name, seed] as const)))(
    '%s, seed %i',
    async (name, seed) => {
      const projection = projections.find((p) => p.name === name)!;
      const events = scenario(seed).filter((e) => projection.handles.includes(e.type));
      await clearTables(sql, projection);
      await sql.transaction(async (tx) => {
        for (const event of events) await projection.apply(event, tx);
      });
      const oneByOne = await dumpTables(sql, projection);

      await clearTables(sql, projection);
      const random = seededRandom(seed * 31);
      let statements = 0;
      let sent = 0;
      const fold = async (batch: RecordedEvent[]) => {
        const folded = batch.flatMap((event) => projection.evolve!(event));
        await learnParameterTypes(sql, folded);
        const script = mergedScript(folded);
        statements += folded.length;
        sent += script.length;
        if (script.length > 0) await sql.exec(script.join(';\n'));
      };
      const done: RecordedEvent[][] = [];
      for (let from = 0; from < events.length;) {
        const batch = events.slice(from, (from += 1 + Math.floor(random() * 80)));
        await fold(batch);
        done.push(batch);
        // Executions' rows keep the position of the last event folded: a batch folded again, at once or after later
        // ones, changes nothing. (Pending executions delete ended rows, so only a runner's atomic batches keep them.)
        if (projection === executionsProjection && random() < 0.3)
          await fold(done[Math.floor(random() * done.length)]!);
      }
      expect(await dumpTables(sql, projection)).toEqual(oneByOne);
      // The batches really were merged, and the scenario reached rows in every shape.
      expect(sent).toBeLessThan(statements);
      expect(Object.values(oneByOne).flat().length).toBeGreaterThan(10);
    },
  );
});
