import type { AppendSignal } from '../../adapters/eventstore/append-signal.js';
import { advanceCheckpoint, advanceCheckpointOrFail, CheckpointConflict, isCheckpointMoved, loadCheckpoint, resetCheckpoint } from '../../adapters/eventstore/checkpoints.js';
import { inline } from '../../adapters/eventstore/sql/statement-script.js';
import type { EventStore } from '../../adapters/eventstore/event-store.port.js';
import type { SqlClient } from '../../adapters/eventstore/sql/sql-client.js';
import { Subscription } from '../../adapters/eventstore/subscription.js';
import type { Projection } from './projection.js';

const checkpointName = (projection: Projection) => `projection:${projection.name}`;

/** Keeps one projection's rows and checkpoint moving together, one transaction per batch (OP-3). */
export class ProjectionRunner {
  readonly subscription: Subscription;
  private readonly folded: Array<() => void> = [];

  constructor(
    private readonly sql: SqlClient,
    private readonly store: EventStore,
    readonly projection: Projection,
    options: { signal?: AppendSignal; batchSize?: number; idlePollMs?: number; lingerMs?: number; onError?: (error: unknown) => void } = {},
  ) {
    const handled = new Set(projection.handles);
    this.subscription = new Subscription({
      name: checkpointName(projection),
      store,
      signal: options.signal,
      batchSize: options.batchSize,
      idlePollMs: options.idlePollMs,
      lingerMs: options.lingerMs,
      onError: options.onError,
      checkpoint: () => loadCheckpoint(this.sql, checkpointName(projection)),
      types: projection.handles,
      handle: async (events, from, to) => {
        const mine = events.filter((event) => handled.has(event.type));
        // Nothing to fold: moving the checkpoint is one statement, no transaction needed.
        if (mine.length === 0) {
          if (!(await advanceCheckpoint(this.sql.unflushed ?? this.sql, checkpointName(projection), from, to))) throw new CheckpointConflict(checkpointName(projection));
          return;
        }
        if (projection.evolve) {
          // Rows and checkpoint in one implicit transaction: a moved checkpoint fails the script.
          const folded = projection.evolveBatch ? projection.evolveBatch(mine) : mine.flatMap((event) => projection.evolve!(event));
          const statements = [...folded, advanceCheckpointOrFail(checkpointName(projection), from, to)];
          try {
            // Read models are rebuilt from the log, so their commits need not wait for a WAL flush: a
            // crash can lose only whole trailing batches, rows and checkpoint together, and they are replayed.
            const script = statements.map(inline).join(';\n');
            await (this.sql.unflushed?.exec ? this.sql.unflushed.exec(script) : this.sql.exec(script));
          } catch (error) {
            throw isCheckpointMoved(error) ? new CheckpointConflict(checkpointName(projection)) : error;
          }
          this.changed();
          return;
        }
        await this.sql.transaction(async (tx) => {
          // As for scripts: a crash may lose whole trailing batches of a read model, never half of one.
          await tx.query('SET LOCAL synchronous_commit TO OFF');
          if (projection.applyBatch) await projection.applyBatch(mine, tx);
          else for (const event of mine) await projection.apply(event, tx);
          const advanced = await advanceCheckpoint(tx, checkpointName(projection), from, to);
          if (!advanced) throw new CheckpointConflict(checkpointName(projection));
        });
        this.changed();
      },
    });
  }

  /** Calls `listener` after every batch that changed this read model's rows (caches built on it). */
  onFolded(listener: () => void): void {
    this.folded.push(listener);
  }

  private changed(): void {
    this.folded.forEach((listener) => listener());
  }

  position(): Promise<number> {
    return loadCheckpoint(this.sql, checkpointName(this.projection));
  }

  /** Has this read model folded the event at `position` (read-your-writes)? */
  async hasReached(position: number): Promise<boolean> {
    return this.store.isAtOrBefore(position, await this.position());
  }

  catchUp(onProgress?: (handled: number) => void): Promise<number> {
    return this.subscription.catchUp(onProgress);
  }

  /** Empties the read model and replays the whole log; the result equals the live rows (OP-3). */
  async rebuild(onProgress?: (handled: number) => void): Promise<number> {
    this.subscription.forgetCheckpoint();
    await this.sql.transaction(async (tx) => {
      for (const table of this.projection.tables) await tx.query(`DELETE FROM ${table}`);
      await resetCheckpoint(tx, checkpointName(this.projection));
    });
    this.changed();
    return this.catchUp(onProgress);
  }
}
