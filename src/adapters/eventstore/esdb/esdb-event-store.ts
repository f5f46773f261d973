import { randomUUID } from 'node:crypto';
import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  EventStoreDBClient,
  type JSONType,
  jsonEvent,
  type ResolvedEvent,
  START,
  type StreamingRead,
} from '@eventstore/db-client';
import { chainHash, eventContent } from '../../../domain/shared/event-hash.js';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from '../../../domain/ports/event-store.js';
import { StoreUnavailable, WrongExpectedRevision } from '../../../domain/shared/errors.js';
import { UpcasterRegistry } from '../upcasters.js';
import {
  concreteRevision,
  type EsdbRecord,
  isStreamNotFound,
  isSystemEvent,
  isUnavailable,
  positionFrom,
  toRecordedEvent,
  wrapMetadata,
  wrongExpectedActual,
} from './esdb-mapping.js';

type PreparedEvent = NewEvent & { id: string; schemaVersion: number; metadata: NonNullable<NewEvent['metadata']> };

const HEAD_ATTEMPTS = 20;

/**
 * The SQL adapter's three rules (sql-event-store.ts) hold here as follows:
 * - Every append goes out with a *concrete* expected revision: ESDB is idempotent by event id only then, never
 *   with `any` (decision 3, docs/architecture.md). `any` and `stream_exists` resolve the head first and retry.
 * - Hash chain (AU-2): computed here from the predecessor's stored hash, the append conditional on that
 *   predecessor still being the head; it travels in the metadata under `$reveille`.
 * - The $all log is written by one writer in order, so a prefix read never passes an uncommitted event: the
 *   gap-free rule needs no extra work (read from the leader).
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly upcasters = new UpcasterRegistry(),
    /** `withUpcasters` views share the client; only the owner disposes it. */
    private readonly ownsClient = true,
  ) {}

  static connect(connectionString: string, upcasters?: UpcasterRegistry): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString), upcasters);
  }

  withUpcasters(registry: UpcasterRegistry): EsdbEventStore {
    return new EsdbEventStore(this.client, registry, false);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const prepared: PreparedEvent[] = events.map((e) => ({
      ...e,
      id: e.id ?? randomUUID(),
      schemaVersion: e.schemaVersion ?? 1,
      metadata: e.metadata ?? {},
    }));
    return guard(async () => {
      if (expected === 'any' || expected === 'stream_exists') return this.appendAtHead(streamId, prepared, expected);
      const at = expected === 'no_stream' ? -1 : expected;
      if (!Number.isSafeInteger(at) || at < -1) throw new RangeError(`invalid expected revision ${String(expected)}`);
      return this.appendAt(streamId, prepared, at, expected, at < 0 ? null : undefined);
    });
  }

  /**
   * A retry of the same ids after an ambiguous failure finds them as the stream's tail and returns them instead of
   * writing duplicates (with a writer in between, ESDB itself could not tell either).
   */
  private async appendAtHead(
    streamId: string,
    events: PreparedEvent[],
    expected: 'any' | 'stream_exists',
  ): Promise<AppendResult> {
    for (let attempt = 0; ; attempt++) {
      const tail = (
        await this.collect(
          this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: events.length }),
        )
      ).reverse();
      const head = tail.length > 0 ? tail[tail.length - 1]!.revision : -1;
      if (expected === 'stream_exists' && head < 0) throw new WrongExpectedRevision(streamId, expected, head);
      if (tail.length === events.length && tail.every((e, i) => e.id === events[i]!.id)) return result(streamId, tail);
      try {
        return await this.appendAt(streamId, events, head, expected, tail[tail.length - 1] ?? null);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt + 1 >= HEAD_ATTEMPTS) throw error;
      }
    }
  }

  /** `prev`: the event at `at` when the caller already holds it (null: none), undefined to read it here. */
  private async appendAt(
    streamId: string,
    events: PreparedEvent[],
    at: number,
    expected: ExpectedRevision,
    prev: RecordedEvent | null | undefined,
  ): Promise<AppendResult> {
    const predecessor = prev === undefined ? await this.eventAt(streamId, at) : prev;
    if (at >= 0 && predecessor === null)
      throw new WrongExpectedRevision(streamId, expected, await this.headRevision(streamId));
    // Host clock (see now()); ISO with milliseconds, the same shape the SQL stores produce.
    const recordedAt = new Date().toISOString();
    let prevHash = predecessor?.hash ?? null;
    const outgoing = events.map((e, i) => {
      const hash = chainHash(prevHash, recordedAt, eventContent({ ...e, streamId, revision: at + 1 + i }));
      const envelope = { recordedAt, hash, prevHash, schemaVersion: e.schemaVersion };
      prevHash = hash;
      return jsonEvent({
        id: e.id,
        type: e.type,
        data: e.data as JSONType,
        metadata: wrapMetadata(e.metadata, envelope),
      });
    });
    try {
      await this.client.appendToStream(streamId, outgoing, { expectedRevision: concreteRevision(at) });
    } catch (error) {
      const actual = wrongExpectedActual(error);
      if (actual !== null) throw new WrongExpectedRevision(streamId, expected, actual);
      throw error;
    }
    // Read back: the append answer carries only the last event's position, and an idempotent replay
    // succeeds without writing, so the stored events (original timestamps and hashes) are the result.
    const stored = await this.collect(
      this.client.readStream(streamId, { fromRevision: BigInt(at + 1), maxCount: events.length }),
    );
    if (stored.length !== events.length || stored.some((e, i) => e.id !== events[i]!.id)) {
      throw new Error(`EventStoreDB acknowledged ${streamId}@${at + 1} but reading it back found other events`);
    }
    return result(streamId, stored);
  }

  private async eventAt(streamId: string, revision: number): Promise<RecordedEvent | null> {
    if (revision < 0) return null;
    const [event] = await this.collect(
      this.client.readStream(streamId, { fromRevision: BigInt(revision), maxCount: 1 }),
    );
    return event?.revision === revision ? event : null;
  }

  private async headRevision(streamId: string): Promise<number> {
    const [last] = await this.collect(
      this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
    );
    return last?.revision ?? -1;
  }

  async readLast(streamId: string): Promise<RecordedEvent | null> {
    return guard(async () => {
      const events = await this.collect(
        this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
      );
      return this.finish(events)[0] ?? null;
    });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return guard(async () => {
      const events = await this.collect(
        this.client.readStream(streamId, {
          fromRevision: BigInt(options.fromRevision ?? 0),
          maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
        }),
      );
      return this.finish(events, options.raw);
    });
  }

  /**
   * $all also holds system events, which are skipped, so a page is refilled until `maxCount` application events
   * are found. A read from a position includes the event at it, hence the `> after` filter.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? 500;
    return guard(async () => {
      const out: RecordedEvent[] = [];
      let cursor = options.after ?? 0;
      while (out.length < limit) {
        const batch = Math.max(limit - out.length + 1, 64);
        const page = await this.collectAll(
          this.client.readAll({ fromPosition: cursor > 0 ? positionFrom(cursor) : START, maxCount: batch }),
        );
        let last = cursor;
        for (const resolved of page) {
          const record = resolved.event;
          if (!record || Number(record.position.commit) <= cursor) continue;
          last = Number(record.position.commit);
          if (isSystemEvent(record.streamId, record.type)) continue;
          out.push(toRecordedEvent(record as EsdbRecord, record.position.commit));
          if (out.length === limit) break;
        }
        if (page.length < batch || last === cursor) break;
        cursor = last;
      }
      return options.raw ? out : out.map((e) => this.upcasters.upcast(e));
    });
  }

  async headPosition(): Promise<number> {
    return guard(async () => {
      const page = await this.collectAll(
        this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 256 }),
      );
      const newest = page.find(
        (resolved) => resolved.event && !isSystemEvent(resolved.event.streamId, resolved.event.type),
      );
      return newest?.event ? Number(newest.event.position.commit) : 0;
    });
  }

  /** $all has no in-flight gaps: plain comparison. */
  async isAtOrBefore(position: number, checkpoint: number): Promise<boolean> {
    return position <= checkpoint;
  }

  /**
   * CAVEAT (SC-6): EventStoreDB offers no clock query, so this is the HOST clock; a probe append per call would cost
   * a write and pollute the log. Deployments on EventStoreDB must keep hosts NTP-synced.
   */
  async now(): Promise<Date> {
    return new Date();
  }

  async ping(): Promise<void> {
    await guard(() => this.collectAll(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })));
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.dispose();
  }

  /** A missing stream is empty. */
  private async collect(read: StreamingRead<ResolvedEvent>): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        const record = (resolved as ResolvedEvent).event;
        if (record) out.push(toRecordedEvent(record as EsdbRecord));
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return out;
  }

  private async collectAll(read: StreamingRead<AllStreamResolvedEvent>): Promise<AllStreamResolvedEvent[]> {
    const out: AllStreamResolvedEvent[] = [];
    for await (const resolved of read) out.push(resolved as AllStreamResolvedEvent);
    return out;
  }

  private finish(events: RecordedEvent[], raw?: boolean): RecordedEvent[] {
    return raw ? events : events.map((e) => this.upcasters.upcast(e));
  }
}

/** Only connection-level failures become StoreUnavailable (503); conflicts and bugs stay themselves. */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WrongExpectedRevision || error instanceof StoreUnavailable) throw error;
    if (isUnavailable(error))
      throw new StoreUnavailable(String((error as { message?: unknown }).message ?? error), { cause: error });
    throw error;
  }
}

function result(streamId: string, events: RecordedEvent[]): AppendResult {
  const last = events[events.length - 1]!;
  return { streamId, nextExpectedRevision: last.revision, position: last.position, events };
}
