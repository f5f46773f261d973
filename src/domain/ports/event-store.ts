/** Modelled on EventStoreDB's semantics, so PostgreSQL, PGlite and EventStoreDB are interchangeable behind it. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface EventMetadata {
  tenant?: string;
  actor?: string;
  correlationId?: string;
  causationId?: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** Re-appending the same ids at the same expected revision is idempotent. */
  id?: string;
  type: string;
  schemaVersion?: number;
  data: unknown;
  metadata?: EventMetadata;
}

export interface RecordedEvent<D = unknown> {
  id: string;
  streamId: string;
  revision: number;
  position: number;
  type: string;
  schemaVersion: number;
  data: D;
  metadata: EventMetadata;
  /** Store clock, RFC 3339 UTC with milliseconds. */
  recordedAt: string;
  hash: string;
  prevHash: string | null;
}

export interface AppendResult {
  streamId: string;
  nextExpectedRevision: number;
  position: number;
  events: RecordedEvent[];
}

export interface ReadStreamOptions {
  fromRevision?: number;
  maxCount?: number;
  /** Skip upcasting: the auditor verifies hashes over the bytes as stored. */
  raw?: boolean;
}

export interface ReadAllOptions {
  after?: number;
  maxCount?: number;
  raw?: boolean;
  /**
   * A live subscription's read near the head: the store may serve it from the recent events it read for other
   * such readers (then with every data path and every event frozen), instead of a query of its own.
   */
  live?: boolean;
  /** readAllOf only, at most two paths; a store that cannot leave them out returns them. */
  omitData?: ReadonlyArray<readonly string[]>;
}

export interface StreamRead {
  streamId: string;
  fromRevision: number;
}

export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expected: 'no_stream' | number;
}

/** Opaque: only the adapter that handed it out knows what it is (the SQL stores' SqlExecutor). */
export type StoreTransaction = object;

export interface PreparedEvent {
  streamId: string;
  revision: number;
  content: string;
}

export interface TransactionalAppendResult {
  streams: Array<Array<Pick<RecordedEvent, 'id' | 'streamId' | 'revision' | 'position' | 'type' | 'data'>>>;
  prepared: number[];
}

export interface StoreInTransaction {
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** On WrongExpectedRevision the caller's transaction must roll back; nothing is signalled before it commits. */
  appendBatch(
    batch: readonly StreamAppend[],
    prepared?: readonly PreparedEvent[],
    options?: AppendBatchOptions,
  ): Promise<TransactionalAppendResult>;
}

export interface AppendStreamsOptions {
  /**
   * Every event in the batch's order (positions follow it) instead of stream-id order; for racers that write the
   * same streams in the same order (a poll's page and then its poll event, PO-2).
   */
  inBatchOrder?: boolean;
}

export interface AppendBatchOptions {
  /**
   * New streams with their only event are written in the batch's order (their positions follow it) instead of
   * stream-id order, and before the others; for racers that write the same streams in the same order.
   */
  inBatchOrder?: boolean;
}

export interface FilteredPage {
  events: RecordedEvent[];
  scanned: number;
  last: number | null;
}

export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'eventstoredb';
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** For streams whose every event carries their whole state. */
  readLast(streamId: string): Promise<RecordedEvent | null>;
  /** Gap-free: an event is returned only once every event ordered before it is settled, so `after` skips nothing. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  readStreams?(requests: readonly StreamRead[]): Promise<RecordedEvent[][]>;
  /** All or nothing; callers without it append stream by stream and must tolerate a crash in between. */
  appendStreams?(batch: readonly StreamAppend[], options?: AppendStreamsOptions): Promise<number[]>;
  /** So appends commit with the caller's own writes (the scheduler's due-index rows). */
  inTransaction?(transaction: StoreTransaction): StoreInTransaction;
  /** The same page as readAll's: resume after `last`, even when no event of `types` was in it. */
  readAllOf?(types: readonly string[], options?: ReadAllOptions): Promise<FilteredPage>;
  /** readAll may still hold this position back. */
  headPosition(): Promise<number>;
  /** In readAll order, not by number (read-your-writes). */
  isAtOrBefore(position: number, checkpoint: number): Promise<boolean>;
  /** Schedules and windows never trust the host clock (SC-6). */
  now(): Promise<Date>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
