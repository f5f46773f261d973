import type { RecordedEvent } from '../../../domain/ports/event-store.js';
import type { AppendSignal } from '../../../projections/runner/append-signal.js';
import type { SqlExecutor } from '../../../projections/sql-client.js';
import type { EventRow } from './event-row.js';
import { READ_TAIL_SQL } from './event-statements.js';
import { DEFAULT_TAIL_LIMITS, TailWindow } from './tail-window.js';

/**
 * The SQL store's window on the log's tail for its live subscriptions: read with each event's stored size (the
 * memory bound), upcast as the store reads, and told of every append of this process through its signal.
 */
export function sharedTail(
  sql: SqlExecutor,
  finish: (rows: EventRow[]) => RecordedEvent[],
  signal?: AppendSignal,
): TailWindow {
  const window = new TailWindow(
    async (after, maxCount) => {
      const { rows } = await sql.query<EventRow & { stored_bytes: number }>({
        name: 'reveille_read_tail',
        text: READ_TAIL_SQL,
        values: [after, maxCount],
      });
      return { events: finish(rows), sizes: rows.map((row) => Number(row.stored_bytes)) };
    },
    DEFAULT_TAIL_LIMITS,
    Date.now,
    !!signal,
  );
  // every append of this process, the background thread's forwarded ones too
  signal?.onNotify((types, position) => window.noteAppend(types, position));
  // those waiting for a held-back append's types look again (no new append: nobody else is told)
  if (signal) window.whenHeldBack((types) => signal.wake(types));
  return window;
}
