/**
 * The event store port, modelled on EventStoreDB's semantics so the three adapters (PostgreSQL,
 * PGlite, EventStoreDB) are interchangeable behind it.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface EventMetadata {
  tenant?: string;
  actor?: string;
  correlationId?: string;
  causationId?: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** Client-chosen UUID; re-appending the same ids at the same expected revision is idempotent. */
  id?: string;
  type: string;
  schemaVersion?: number;
  data: unknown;
  metadata?: EventMetadata;
}

export interface RecordedEvent<D = unknown> {
  id: string;
  streamId: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Unique position in the global log; pass it as `after` to continue reading after this event. */
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
  /** Revision of the last appended event (the expected revision for the next append). */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
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
  /** Position of the last event already seen; 0 (or omitted) reads from the beginning. */
  after?: number;
  maxCount?: number;
  raw?: boolean;
  /**
   * readAllOf only: paths inside `data` the reader never uses (payloads), left out of what is read —
   * at most two. A store that cannot leave them out returns them.
   */
  omitData?: ReadonlyArray<readonly string[]>;
}

/** One stream read forward from a revision (see readStreams). */
export interface StreamRead {
  streamId: string;
  fromRevision: number;
}

/** One stream's share of a multi-stream append: its events and the revision it must be at. */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expected: 'no_stream' | number;
}

/**
 * A transaction the caller opened on the store's own database (the SQL stores' SqlExecutor): opaque
 * here, only the adapter that handed it out knows what it is.
 */
export type StoreTransaction = object;

/** An event already in its canonical content (see eventContent in domain/shared/event-hash), prepared ahead of its append. */
export interface PreparedEvent {
  streamId: string;
  revision: number;
  content: string;
}

/** What a transactional batch append recorded: each stream's events as sent, with their positions, and each prepared event's position. */
export interface TransactionalAppendResult {
  streams: Array<Array<Pick<RecordedEvent, 'id' | 'streamId' | 'revision' | 'position' | 'type' | 'data'>>>;
  prepared: number[];
}

/** The store inside a caller's transaction: its reads see, and its appends commit or roll back with, the caller's writes. */
export interface StoreInTransaction {
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Appends every stream of `batch` and every prepared event, all or nothing, in as few statements as
   * the store can; WrongExpectedRevision when a stream is not at its expected revision (the caller's
   * transaction must then roll back). Nothing is visible, or signalled to subscribers, before the caller commits.
   */
  appendBatch(batch: readonly StreamAppend[], prepared?: readonly PreparedEvent[]): Promise<TransactionalAppendResult>;
}

/** A page of the global log with only some types' events (see readAllOf). */
export interface FilteredPage {
  events: RecordedEvent[];
  scanned: number;
  last: number | null;
}

export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'eventstoredb';
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** The stream's last event (null: no such stream), for streams whose every event carries their whole state. */
  readLast(streamId: string): Promise<RecordedEvent | null>;
  /**
   * The global log in a gap-free order: an event is returned only once every event ordered before it
   * is committed or rolled back, so a reader that continues `after` its last event skips nothing.
   */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Optional: several streams, each from its own revision, in one call (adapters that can do it in
   * one round trip). Callers fall back to one readStream per stream.
   */
  readStreams?(requests: readonly StreamRead[]): Promise<RecordedEvent[][]>;
  /**
   * Optional: appends to several streams all or nothing, returning the global position of each
   * stream's last event; WrongExpectedRevision when any stream is not at its expected revision.
   * Callers without it append stream by stream and must tolerate a crash in between.
   */
  appendStreams?(batch: readonly StreamAppend[]): Promise<number[]>;
  /**
   * Optional (stores that keep the log in the caller's database): the store inside `transaction`, so a
   * batch of appends commits together with the caller's own writes (the scheduler's due-index rows).
   */
  inTransaction?(transaction: StoreTransaction): StoreInTransaction;
  /**
   * Optional: readAll restricted to `types`, for subscribers that fold a few event types. The page is
   * the same as readAll's; `scanned` counts its events and `last` is the position of its last one
   * (resume after it), null when the page was empty.
   */
  readAllOf?(types: readonly string[], options?: ReadAllOptions): Promise<FilteredPage>;
  /** Position of the last committed event (0 when the log is empty); readAll may still hold it back. */
  headPosition(): Promise<number>;
  /** True when `position` is at or before `checkpoint` in readAll order (read-your-writes). */
  isAtOrBefore(position: number, checkpoint: number): Promise<boolean>;
  /** The store's clock: schedules and windows never trust the host clock (SC-6). */
  now(): Promise<Date>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
