import type { AppendSignal } from '../../adapters/eventstore/append-signal.js';
import { advanceCheckpoint, CheckpointConflict, loadCheckpoint, resetCheckpoint } from '../../adapters/eventstore/checkpoints.js';
import type { EventStore } from '../../adapters/eventstore/event-store.port.js';
import type { SqlClient } from '../../adapters/eventstore/sql/sql-client.js';
import { Subscription } from '../../adapters/eventstore/subscription.js';
import type { Projection } from './projection.js';

const checkpointName = (projection: Projection) => `projection:${projection.name}`;

/** Keeps one projection's rows and checkpoint moving together, one transaction per batch (OP-3). */
export class ProjectionRunner {
  readonly subscription: Subscription;

  constructor(
    private readonly sql: SqlClient,
    private readonly store: EventStore,
    readonly projection: Projection,
    options: { signal?: AppendSignal; batchSize?: number; idlePollMs?: number; onError?: (error: unknown) => void } = {},
  ) {
    const handled = new Set(projection.handles);
    this.subscription = new Subscription({
      name: checkpointName(projection),
      store,
      signal: options.signal,
      batchSize: options.batchSize,
      idlePollMs: options.idlePollMs,
      onError: options.onError,
      checkpoint: () => loadCheckpoint(this.sql, checkpointName(projection)),
      handle: (events, from) =>
        this.sql.transaction(async (tx) => {
          const mine = events.filter((event) => handled.has(event.type));
          if (projection.applyBatch) await projection.applyBatch(mine, tx);
          else for (const event of mine) await projection.apply(event, tx);
          const advanced = await advanceCheckpoint(tx, checkpointName(projection), from, events[events.length - 1]!.position);
          if (!advanced) throw new CheckpointConflict(checkpointName(projection));
        }),
    });
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
    await this.sql.transaction(async (tx) => {
      for (const table of this.projection.tables) await tx.query(`DELETE FROM ${table}`);
      await resetCheckpoint(tx, checkpointName(this.projection));
    });
    return this.catchUp(onProgress);
  }
}
