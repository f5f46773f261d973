import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';
import { runStatements } from './statement-script.js';
import type { Projection } from './projection.js';

/** A batch sends all its events' statements, in log order, in one round trip instead of one per statement. */
export function statementProjection(
  definition: Omit<Projection, 'apply' | 'applyBatch'> & { evolve(event: RecordedEvent): SqlQuery[] },
): Projection {
  const { evolve, evolveBatch = (events: RecordedEvent[]) => events.flatMap(evolve) } = definition;
  return {
    ...definition,
    async apply(event: RecordedEvent, tx: SqlExecutor): Promise<void> {
      for (const statement of evolve(event)) await tx.query(statement);
    },
    async applyBatch(events: RecordedEvent[], tx: SqlExecutor): Promise<void> {
      await runStatements(tx, evolveBatch(events));
    },
  };
}
