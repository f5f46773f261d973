import { randomUUID } from 'node:crypto';
import { eventContent } from '../../../domain/shared/event-hash.js';
import {
  type AppendResult,
  type AppendStreamsOptions,
  type EventStore,
  type ExpectedRevision,
  type FilteredPage,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type StreamRead,
} from '../../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../../domain/shared/errors.js';
import { appendBatch, BatchConflict, collidedKey } from './sql-batch-append.js';
import { newStreamBatcher } from './new-stream-batcher.js';
import { StatementBatcher } from './statement-batcher.js';
import { UpcasterRegistry } from '../upcasters.js';
import type { SqlClient, SqlExecutor } from '../../../projections/sql-client.js';
import type { AppendSignal } from '../../../projections/runner/append-signal.js';
import { isUniqueViolation } from './store-errors.js';
import { APPEND_SQL, APPEND_ONE_SQL, READ_ALL_SQL, READ_ALL_OF_SQL, omittedPaths } from './event-statements.js';
import type { TailWindow } from './tail-window.js';
import { sharedTail } from './shared-tail.js';
import { type AppendedRow, eventColumns, type EventRow, toRecorded } from './event-row.js';
import { inTransactionOf } from './sql-store-in-transaction.js';

/**
 * The PostgreSQL and PGlite event store. Three rules make the events table an event store; each is
 * proved against both databases by the conformance suite (test/eventstore/conformance.ts; titles quoted as
 * describe › it, requirement ids left out):
 *
 * 1. Global order below the oldest in-flight transaction. Each row keeps the id of the transaction that
 *    wrote it (transaction_id). Positions are handed out before commit, so a reader follows
 *    (transaction_id, position) and passes only rows whose transaction_id is below
 *    pg_snapshot_xmin(pg_current_snapshot()): no transaction still open can commit a row in front of
 *    what a reader has passed, and a rollback holds nobody up. headPosition is the last row in that order.
 *    Proved by "gap-free global order › does not pass an in-flight transaction holding an earlier
 *    position, and is not stalled by a rollback", "… › delivers every committed event exactly once to
 *    a subscriber racing 8 writers with delayed commits and rollbacks" and "… › answers as head the
 *    last event in read order, not the highest position".
 * 2. Expected revision through the unique constraint (stream_id, revision). An append inserts its
 *    events at expected + 1, expected + 2, …; of writers racing from one revision all but one fail
 *    the constraint (no locks, no read-then-write) and learn the stream's actual revision — unless
 *    they re-send the same event ids at the same revision, which is success. Proved by "optimistic
 *    concurrency › lets exactly one of 100 concurrent appends at the same expected revision win" and
 *    "many streams at once › names the stream that moved in a multi-stream conflict, with its actual
 *    revision".
 * 3. Per-stream hash chain (AU-2): hash = SHA-256(prev_hash + "\n" + recordedAt + "\n" + content), hex,
 *    where content is the event's canonical JSON (eventContent) and prev_hash the hash of the stream's
 *    previous event ('' at revision 0). Every INSERT computes it from the one clock reading it stores
 *    (event-row.ts), so the chain costs no round trip. Proved by "hash chain › verifies an
 *    untouched stream" and "… › detects a tampered row".
 */

export class SqlEventStore implements EventStore {
  readonly kind: 'postgres' | 'pglite';

  private readonly newStreams: ReturnType<typeof newStreamBatcher> | null;
  private readonly reads: StatementBatcher<StreamRead, RecordedEvent[]> | null;
  /** Live subscriptions' pages, read once for all of them (tail-window.ts). */
  private readonly tail: TailWindow | null;

  constructor(
    private readonly sql: SqlClient,
    private readonly upcasters = new UpcasterRegistry(),
    private readonly signal?: AppendSignal,
    options: { batching?: boolean; sharedTail?: boolean } = {},
  ) {
    this.kind = sql.kind;
    const batching = options.batching !== false;
    this.tail = options.sharedTail === false ? null : sharedTail(sql, (rows) => this.finish(rows), signal);
    this.newStreams = batching ? newStreamBatcher(sql) : null;
    // Concurrent whole-stream reads (the ingress's Trigger lookups) share one query.
    this.reads = batching ? new StatementBatcher((requests) => this.readStreams(requests)) : null;
  }

  within(tx: SqlExecutor): SqlEventStore {
    const bound: SqlClient = {
      ...this.sql,
      kind: this.sql.kind,
      query: (q, v) => tx.query(q, v),
      transaction: (work) => work(tx),
      exec: async () => undefined,
      close: async () => undefined,
    };
    return new SqlEventStore(bound, this.upcasters, this.signal, { batching: false, sharedTail: false });
  }

  readonly inTransaction = inTransactionOf((tx) => this.within(tx));

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const prepared = events.map((e) => ({
      ...e,
      id: e.id ?? randomUUID(),
      schemaVersion: e.schemaVersion ?? 1,
      metadata: e.metadata ?? {},
    }));
    if (expected === 'any' || expected === 'stream_exists') return this.appendAtHead(streamId, prepared, expected);
    if (expected === 'no_stream' && prepared.length === 1 && this.newStreams) {
      const [event] = prepared as [PreparedEvent];
      const appended = await this.newStreams.submit({ streamId, event });
      if (appended) {
        this.signal?.notify([event.type], appended.position);
        return result(streamId, [{ ...event, streamId, revision: 0, ...appended, prevHash: null }]);
      }
      // The stream exists (or the batch could not tell): the ordinary path gives the exact answer.
    }
    return this.appendAt(streamId, prepared, expected === 'no_stream' ? -1 : expected, expected);
  }

  /** `any`/`stream_exists` resolve the head and append there; a racing writer only means "look again". */
  private async appendAtHead(
    streamId: string,
    events: PreparedEvent[],
    expected: 'any' | 'stream_exists',
  ): Promise<AppendResult> {
    for (let attempt = 0; ; attempt++) {
      const head = await this.headRevision(streamId);
      if (expected === 'stream_exists' && head < 0) throw new WrongExpectedRevision(streamId, expected, head);
      try {
        return await this.appendAt(streamId, events, head, expected);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= 20) throw error;
      }
    }
  }

  private async appendAt(
    streamId: string,
    events: PreparedEvent[],
    at: number,
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    try {
      const rows = await this.insert(streamId, events, at);
      if (rows.length === events.length) {
        this.signal?.notify(
          events.map((e) => e.type),
          Math.max(...rows.map((row) => Number(row.position))),
        );
        return result(
          streamId,
          rows.map((row, i) => {
            const e = events[i]!;
            const { position, revision, recorded_at: recordedAt, hash, prev_hash: prevHash } = row;
            return {
              id: e.id,
              streamId,
              revision,
              position: Number(position),
              type: e.type,
              schemaVersion: e.schemaVersion,
              data: e.data,
              metadata: e.metadata,
              recordedAt,
              hash,
              prevHash,
            };
          }),
        );
      }
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const replayed = await this.alreadyAppended(streamId, events, at);
    if (replayed) return replayed;
    throw new WrongExpectedRevision(streamId, expected, await this.headRevision(streamId));
  }

  private async insert(streamId: string, events: PreparedEvent[], at: number): Promise<AppendedRow[]> {
    const content = (e: PreparedEvent, i: number) => eventContent({ ...e, streamId, revision: at + 1 + i });
    if (events.length === 1) {
      const [e] = events as [PreparedEvent];
      const values = [
        e.id,
        streamId,
        at,
        e.type,
        e.schemaVersion,
        JSON.stringify(e.data),
        JSON.stringify(e.metadata),
        content(e, 0),
      ];
      return (await this.sql.query<AppendedRow>({ name: 'reveille_append_one', text: APPEND_ONE_SQL, values })).rows;
    }
    const payload = events.map((e, i) => ({
      id: e.id,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      content: content(e, i),
    }));
    return (
      await this.sql.query<AppendedRow>({
        name: 'reveille_append',
        text: APPEND_SQL,
        values: [streamId, JSON.stringify(payload), at],
      })
    ).rows;
  }

  /** ESDB's rule: the same event ids at the same expected revision are a success, not a conflict. */
  private async alreadyAppended(streamId: string, events: PreparedEvent[], at: number): Promise<AppendResult | null> {
    const { rows } = await this.sql.query<EventRow>(
      `SELECT ${eventColumns()} FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY position`,
      [events.map((e) => e.id)],
    );
    const matches =
      rows.length === events.length &&
      rows.every(
        (row, i) => row.stream_id === streamId && row.revision === at + 1 + i && row.event_id === events[i]!.id,
      );
    return matches ? result(streamId, rows.map(toRecorded)) : null;
  }

  private async headRevision(streamId: string): Promise<number> {
    const { rows } = await this.sql.query<{ revision: number }>(
      'SELECT revision FROM events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1',
      [streamId],
    );
    return rows[0]?.revision ?? -1;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (this.reads && !options.raw && options.maxCount === undefined)
      return this.reads.submit({ streamId, fromRevision: options.fromRevision ?? 0 });
    const { rows } = await this.sql.query<EventRow>({
      name: 'reveille_read_stream',
      text: `SELECT ${eventColumns()} FROM events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      values: [streamId, options.fromRevision ?? 0, options.maxCount ?? 1_000_000],
    });
    return this.finish(rows, options.raw);
  }

  async readLast(streamId: string): Promise<RecordedEvent | null> {
    const { rows } = await this.sql.query<EventRow>({
      name: 'reveille_read_last',
      text: `SELECT ${eventColumns()} FROM events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1`,
      values: [streamId],
    });
    return this.finish(rows)[0] ?? null;
  }

  /** Each stream read once from the lowest revision any request wants; every request gets its own tail. */
  async readStreams(requests: readonly StreamRead[]): Promise<RecordedEvent[][]> {
    if (requests.length === 0) return [];
    const from = new Map<string, number>();
    for (const r of requests) from.set(r.streamId, Math.min(r.fromRevision, from.get(r.streamId) ?? r.fromRevision));
    const read = await this.readDistinctStreams(
      [...from].map(([streamId, fromRevision]) => ({ streamId, fromRevision })),
    );
    return requests.map((r) => read.get(r.streamId)!.filter((e) => e.revision >= r.fromRevision));
  }

  /** OFFSET 0 keeps the lookup per stream: a generic plan would otherwise hash-join a scan of the whole log. */
  private async readDistinctStreams(requests: readonly StreamRead[]): Promise<Map<string, RecordedEvent[]>> {
    const { rows } = await this.sql.query<EventRow>({
      name: 'reveille_read_streams',
      text: `SELECT ${eventColumns()} FROM unnest($1::text[], $2::int[]) AS r(wanted_stream, from_revision)
               CROSS JOIN LATERAL (SELECT * FROM events WHERE stream_id = r.wanted_stream AND revision >= r.from_revision OFFSET 0) e
              ORDER BY stream_id, revision`,
      values: [requests.map((r) => r.streamId), requests.map((r) => r.fromRevision)],
    });
    const byStream = new Map<string, RecordedEvent[]>(requests.map((r) => [r.streamId, []]));
    for (const event of this.finish(rows)) byStream.get(event.streamId)?.push(event);
    return byStream;
  }

  async appendStreams(batch: readonly StreamAppend[], options?: AppendStreamsOptions): Promise<number[]> {
    try {
      const appended = await appendBatch(this.sql, batch, options);
      const positions = appended.map((events) => events[events.length - 1]?.position ?? 0);
      this.signal?.notify(
        batch.flatMap((append) => append.events.map((e) => e.type)),
        Math.max(...positions),
      );
      return positions;
    } catch (error) {
      if (!(error instanceof BatchConflict)) throw error;
      throw await this.batchConflict(batch, error);
    }
  }

  /** The batch's statement cannot say which stream moved, so a conflict looks it up (the hot path pays nothing). */
  private async batchConflict(batch: readonly StreamAppend[], conflict: BatchConflict): Promise<WrongExpectedRevision> {
    let heads: Map<string, number>;
    try {
      const { rows } = await this.sql.query<{ stream_id: string; revision: number | null }>(
        `SELECT r.stream_id,
                (SELECT revision FROM events WHERE stream_id = r.stream_id ORDER BY revision DESC LIMIT 1) AS revision
           FROM unnest($1::text[]) AS r(stream_id)`,
        [batch.map((b) => b.streamId)],
      );
      heads = new Map(rows.map((r) => [r.stream_id, r.revision ?? -1]));
    } catch (error) {
      // Inside a caller's transaction the unique violation has aborted it, so nothing can be looked up:
      // the violated key still names a stream that moved, and a revision it holds.
      const collided = collidedKey(conflict.cause);
      const moved = collided && batch.find((b) => b.streamId === collided.streamId);
      if (!moved) throw error;
      return new WrongExpectedRevision(moved.streamId, moved.expected, collided.revision);
    }
    const actual = (b: StreamAppend) => heads.get(b.streamId) ?? -1;
    const moved = batch.find((b) => actual(b) !== (b.expected === 'no_stream' ? -1 : b.expected)) ?? batch[0]!;
    return new WrongExpectedRevision(moved.streamId, moved.expected, actual(moved));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    if (options.live && !options.raw && this.tail) {
      const page = await this.tail.page(options.after ?? 0, options.maxCount ?? 500, null);
      if (page) return page.events;
    }
    const { rows } = await this.sql.query<EventRow>({
      name: 'reveille_read_all',
      text: READ_ALL_SQL,
      values: [options.after ?? 0, options.maxCount ?? 500],
    });
    return this.finish(rows, options.raw);
  }

  async readAllOf(types: readonly string[], options: ReadAllOptions = {}): Promise<FilteredPage> {
    if (options.live && !options.raw && this.tail) {
      const page = await this.tail.page(options.after ?? 0, options.maxCount ?? 500, new Set(types));
      if (page) return page;
    }
    const { rows } = await this.sql.query<EventRow & { wanted: boolean }>({
      name: 'reveille_read_all_of_v2',
      text: READ_ALL_OF_SQL,
      values: [options.after ?? 0, options.maxCount ?? 500, [...types], ...omittedPaths(options.omitData)],
    });
    if (rows.length === 0) return { events: [], scanned: 0, last: null };
    return {
      events: this.finish(
        rows.filter((row) => row.wanted),
        options.raw,
      ),
      scanned: rows.length,
      last: Number(rows[rows.length - 1]!.position),
    };
  }

  /** Rule 1's last event: a younger transaction's row may hold a lower position than an older one's. */
  async headPosition(): Promise<number> {
    const { rows } = await this.sql.query<{ head: string | number }>(
      'SELECT position AS head FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1',
    );
    return Number(rows[0]?.head ?? 0);
  }

  async isAtOrBefore(position: number, checkpoint: number): Promise<boolean> {
    if (position <= 0) return true;
    if (checkpoint <= 0) return false;
    const { rows } = await this.sql.query<{ ok: boolean }>(
      `SELECT (p.transaction_id, p.position) <= (c.transaction_id, c.position) AS ok
         FROM events p, events c WHERE p.position = $1 AND c.position = $2`,
      [position, checkpoint],
    );
    return rows[0]?.ok === true;
  }

  async now(): Promise<Date> {
    const { rows } = await this.sql.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    return new Date(rows[0]!.now);
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.sql.close();
  }

  private finish(rows: EventRow[], raw?: boolean): RecordedEvent[] {
    const events = rows.map(toRecorded);
    return raw ? events : events.map((e) => this.upcasters.upcast(e));
  }
}

type PreparedEvent = Required<Pick<NewEvent, 'id' | 'schemaVersion' | 'metadata'>> & NewEvent & { id: string };

function result(streamId: string, events: RecordedEvent[]): AppendResult {
  const last = events[events.length - 1]!;
  return { streamId, nextExpectedRevision: last.revision, position: last.position, events };
}
