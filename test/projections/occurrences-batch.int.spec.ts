import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { runStatements } from '../../src/projections/runner/statement-script.js';
import { observed } from '../../src/domain/occurrence/occurrence.fixtures.js';
import {
  evolveOccurrencesBatch,
  occurrencesProjection,
} from '../../src/projections/occurrences/occurrences.projection.js';
import { freshPglite } from '../support/databases.js';
import { clearTables, dumpTables, seededRandom } from './harness.js';

/**
 * OP-3: the occurrences read model folded a batch at a time (one statement per event type between
 * conflicts) must equal folding event by event, whatever the batch boundaries and replays.
 */
function scenario(seed: number): RecordedEvent[] {
  const random = seededRandom(seed);
  const events: RecordedEvent[] = [];
  const known: Array<{ tenant: string; occurrenceId: string; decided: boolean }> = [];
  let position = 0;
  const push = (type: string, data: unknown, tenant: string | null) =>
    events.push({
      id: randomUUID(),
      streamId: `s-${position}`,
      revision: 0,
      position: ++position * 3,
      type,
      schemaVersion: 1,
      data,
      metadata: tenant ? { tenant } : {},
      recordedAt: '',
      hash: '',
      prevHash: null,
    });
  for (let i = 0; i < 80; i++) {
    const roll = random();
    const undecided = known.filter((k) => !k.decided);
    if (roll < 0.45 || known.length === 0) {
      const tenant = random() < 0.7 ? 'acme' : 'globex';
      const o = observed(
        {
          tenant,
          occurrenceId: `o-${i}`,
          externalId: random() < 0.2 ? null : `d-${i}`,
          scheduledAt: random() < 0.3 ? '2026-03-01T10:00:00.000Z' : null,
          observedAt: new Date(Date.UTC(2026, 2, 1, 10, i)).toISOString(),
        },
        `d-${i}`,
      );
      push('OccurrenceObserved', o, tenant);
      // A redelivery of the same Occurrence (first one wins) now and then.
      if (random() < 0.1) push('OccurrenceObserved', { ...o, payloadDigest: 'other' }, tenant);
      known.push({ tenant, occurrenceId: o.occurrenceId, decided: false });
    } else if (roll < 0.8 && undecided.length > 0) {
      const target = undecided[Math.floor(random() * undecided.length)]!;
      target.decided = true;
      const tenant = random() < 0.2 ? null : target.tenant;
      if (random() < 0.5)
        push(
          'OccurrenceAdmitted',
          {
            occurrenceId: target.occurrenceId,
            executionId: `e-${i}`,
            firedAt: '2026-03-01T11:00:00.123Z',
            decidedAt: '2026-03-01T11:00:00.456Z',
            request: {},
            // AD-4: an admission records what its prefilters found (no extra draw: the seeds stay as they were).
            ...(i % 3 === 0 ? { prefilters: [{ filter: 'unchanged', version: 1, baseline: null, index: 0 }] } : {}),
          },
          tenant,
        );
      else if (random() < 0.6)
        push(
          'OccurrenceBlocked',
          {
            occurrenceId: target.occurrenceId,
            reason: 'trigger_disabled',
            evidence: { n: i, note: "it's" },
            decidedAt: '2026-03-01T11:00:01.000Z',
          },
          tenant,
        );
      // SU-1: a delivery to a wait-for subscription folds like a refusal without a reason (no extra draw).
      else if (i % 3 === 1)
        push(
          'OccurrenceSubscribed',
          {
            occurrenceId: target.occurrenceId,
            evidence: { subscriptions: [{ subscriptionId: `w-${i}`, executionId: 'x-w' }] },
            decidedAt: '2026-03-01T11:00:02.000Z',
          },
          tenant,
        );
      // BA-2/AD-4: suppressed decisions fold like blocked ones, under their own status.
      else
        push(
          'OccurrenceSuppressed',
          {
            occurrenceId: target.occurrenceId,
            reason: 'guard_false',
            evidence: { n: i, note: "it's" },
            decidedAt: '2026-03-01T11:00:01.000Z',
          },
          tenant,
        );
    } else {
      const target = known[Math.floor(random() * known.length)]!;
      push(
        'DeliveryConflictRecorded',
        { occurrenceId: target.occurrenceId, conflictingDigest: `c-${i}`, at: '2026-03-01T12:00:00.000Z' },
        target.tenant,
      );
    }
  }
  return events;
}

const dump = (sql: SqlClient) => dumpTables(sql, occurrencesProjection);
const clear = (sql: SqlClient) => clearTables(sql, occurrencesProjection);

describe('OP-2 OP-3 occurrences folded in batches equals folded one by one', () => {
  let sql: SqlClient;
  beforeAll(async () => {
    sql = await freshPglite(occurrencesProjection.migrations);
  });
  afterAll(async () => {
    await sql?.close();
  });

  it.each([1, 2, 3, 4, 5, 6])('seed %i: random batch sizes, some batches replayed', async (seed) => {
    const events = scenario(seed);
    await clear(sql);
    await sql.transaction(async (tx) => {
      for (const event of events) await occurrencesProjection.apply(event, tx);
    });
    const oneByOne = await dump(sql);

    await clear(sql);
    const random = seededRandom(seed * 104729);
    for (let at = 0; at < events.length;) {
      const batch = events.slice(at, (at += 1 + Math.floor(random() * 30)));
      await sql.transaction((tx) => runStatements(tx, evolveOccurrencesBatch(batch)));
      if (random() < 0.3) await sql.transaction((tx) => runStatements(tx, evolveOccurrencesBatch(batch)));
    }
    expect(await dump(sql)).toEqual(oneByOne);
    const rows = (oneByOne as { rm_occurrences: Array<{ status: string; conflicts: number }> }).rm_occurrences;
    expect(rows.map((r) => r.status)).toEqual(
      expect.arrayContaining(['observed', 'admitted', 'blocked', 'subscribed']),
    );
    expect(rows.some((r) => r.conflicts > 0)).toBe(true);
  });
});
