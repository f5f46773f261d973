import type { AppendSignal } from './append-signal.js';
import {
  advanceCheckpoint,
  advanceCheckpointOrFail,
  advanceCheckpointSoon,
  CheckpointConflict,
  isCheckpointMoved,
  loadCheckpoint,
  resetCheckpoint,
} from './checkpoints.js';
import { learnParameterTypes, mergedScript } from './statement-merge.js';
import { inline } from './statement-script.js';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlClient, SqlQuery } from '../sql-client.js';
import { Subscription } from './subscription.js';
import type { Projection } from './projection.js';

const checkpointName = (projection: Projection) => `projection:${projection.name}`;

/** Keeps one projection's rows and checkpoint moving together, one transaction per batch (OP-3). */
export class ProjectionRunner {
  readonly subscription: Subscription;
  private readonly folded: Array<() => void> = [];
  private readonly foldedHere: Array<() => void> = [];
  private readonly handled: ReadonlySet<string>;

  constructor(
    private readonly sql: SqlClient,
    private readonly store: EventStore,
    readonly projection: Projection,
    options: {
      signal?: AppendSignal;
      batchSize?: number;
      idlePollMs?: number;
      lingerMs?: number;
      lingerAfter?: number;
      onError?: (error: unknown) => void;
    } = {},
  ) {
    this.handled = new Set(projection.handles);
    this.subscription = new Subscription({
      name: checkpointName(projection),
      store,
      signal: options.signal,
      batchSize: options.batchSize,
      idlePollMs: options.idlePollMs,
      lingerMs: options.lingerMs,
      lingerAfter: options.lingerAfter,
      onError: options.onError,
      checkpoint: () => loadCheckpoint(this.sql, checkpointName(projection)),
      types: projection.handles,
      omitData: projection.omitsData,
      handle: (events, from, to) => this.fold(events, from, to),
    });
  }

  /** Whether `events` hold one it folds (a page without writes only its checkpoint). */
  folds(events: readonly RecordedEvent[]): boolean {
    return events.some((event) => this.handled.has(event.type));
  }

  /**
   * One page of the log, whose events may include types it does not fold, from the checkpoint `from` (which must
   * still be stored) to the page's last position `to`: rows and checkpoint in one transaction.
   */
  async fold(events: readonly RecordedEvent[], from: number, to: number): Promise<void> {
    const mine = events.filter((event) => this.handled.has(event.type));
    if (mine.length === 0) return this.skip(from, to);
    const scripted = this.projection.evolve ? this.evolved(mine) : (this.projection.scriptFor?.(mine) ?? null);
    await (scripted ? this.foldAsScript(scripted, from, to) : this.foldInTransaction(mine, from, to));
    this.notifyFolded();
    this.foldedHere.forEach((listener) => listener());
  }

  private get name(): string {
    return checkpointName(this.projection);
  }

  private async skip(from: number, to: number): Promise<void> {
    if (!(await advanceCheckpointSoon(this.sql.unflushed ?? this.sql, this.name, from, to)))
      throw new CheckpointConflict(this.name);
  }

  /** Read models are rebuilt from the log, so commits need not wait for a WAL flush: a crash loses whole batches. */
  private evolved(events: RecordedEvent[]): SqlQuery[] {
    const { evolve, evolveBatch } = this.projection;
    return evolveBatch ? evolveBatch(events) : events.flatMap((event) => evolve!(event));
  }

  private async foldAsScript(folded: SqlQuery[], from: number, to: number): Promise<void> {
    await learnParameterTypes(this.sql, folded);
    const script = [...mergedScript(folded), inline(advanceCheckpointOrFail(this.name, from, to))].join(';\n');
    try {
      await (this.sql.unflushed?.exec ? this.sql.unflushed.exec(script) : this.sql.exec(script));
    } catch (error) {
      throw isCheckpointMoved(error) ? new CheckpointConflict(this.name) : error;
    }
  }

  /** For folds that read what they wrote (applyBatch/apply); same durability as scripts. */
  private foldInTransaction(events: RecordedEvent[], from: number, to: number): Promise<void> {
    return this.sql.transaction(
      async (tx) => {
        if (this.projection.applyBatch) await this.projection.applyBatch(events, tx);
        else for (const event of events) await this.projection.apply(event, tx);
        if (!(await advanceCheckpoint(tx, this.name, from, to))) throw new CheckpointConflict(this.name);
      },
      { unflushed: true },
    );
  }

  onFolded(listener: () => void): void {
    this.folded.push(listener);
  }

  /** Only folds this runner made itself, not those reported from another thread or process. */
  onFoldedHere(listener: () => void): void {
    this.foldedHere.push(listener);
  }

  /** Also called for folds made elsewhere (by a background thread), so caches built on the rows drop them. */
  notifyFolded(): void {
    this.folded.forEach((listener) => listener());
  }

  position(): Promise<number> {
    return loadCheckpoint(this.sql, this.name);
  }

  async hasReached(position: number): Promise<boolean> {
    return this.store.isAtOrBefore(position, await this.position());
  }

  catchUp(onProgress?: (handled: number) => void): Promise<number> {
    return this.subscription.catchUp(onProgress);
  }

  /**
   * Catches up while other runners fold the same read model (a service's own loop, another process): the loser of
   * a checkpoint race reads the moved checkpoint and goes on, since their folds are the same.
   */
  async catchUpAlongsideOthers(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.catchUp();
        return;
      } catch (error) {
        if (!(error instanceof CheckpointConflict) || attempt >= 50) throw error;
      }
    }
  }

  /** Empties the read model and replays the whole log; the result equals the live rows (OP-3). */
  async rebuild(onProgress?: (handled: number) => void): Promise<number> {
    await this.reset();
    return this.catchUp(onProgress);
  }

  /** Empties the read model and sets its checkpoint back to position 0. */
  async reset(): Promise<void> {
    this.subscription.forgetCheckpoint();
    await this.sql.transaction(async (tx) => {
      // Not DELETE: a million deleted rows stay behind as dead tuples every insert of the replay wades through
      // (a rebuild of a 1,000,000-event log took 60 % longer than the first fold). TRUNCATE commits with the rest.
      await tx.query(`TRUNCATE ${this.projection.tables.join(', ')}`);
      await resetCheckpoint(tx, checkpointName(this.projection));
    });
    this.notifyFolded();
  }
}
