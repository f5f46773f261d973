import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';
import type { Projection } from './projection.js';

const pathKey = (path: readonly string[]) => JSON.stringify(path);

/** For a read shared by `projections`: a payload path is left out only if none of them reads it. */
export function sharedOmits(projections: readonly Projection[]): Array<readonly string[]> {
  const [first, ...rest] = projections;
  return (first?.omitsData ?? []).filter((path) =>
    rest.every((m) => (m.omitsData ?? []).some((p) => pathKey(p) === pathKey(path))),
  );
}

/**
 * One log read, transaction and checkpoint per batch. Members see an earlier member's rows as written and a
 * later one's as before the batch, so read models that derive from each other need no copy of the other's rows.
 */
export function foldedTogether(name: string, members: readonly Projection[]): Projection {
  const omitsData = sharedOmits(members);
  return {
    name,
    members,
    handles: [...new Set(members.flatMap((m) => m.handles))],
    omitsData,
    // By id, which orders schema changes across members (a later one may touch an earlier member's tables).
    migrations: members.flatMap((m) => m.migrations).sort((a, b) => a.id.localeCompare(b.id)),
    tables: members.flatMap((m) => m.tables),
    readIndexes: members.flatMap((m) => m.readIndexes ?? []),
    async apply(event: RecordedEvent, tx: SqlExecutor): Promise<void> {
      for (const member of members) if (member.handles.includes(event.type)) await member.apply(event, tx);
    },
    // As one script only when every member with events in the batch can script them, in the members' order.
    scriptFor(events: RecordedEvent[]): SqlQuery[] | null {
      const statements: SqlQuery[] = [];
      for (const member of members) {
        const mine = events.filter((event) => member.handles.includes(event.type));
        if (mine.length === 0) continue;
        const scripted = member.scriptFor?.(mine) ?? null;
        if (scripted === null) return null;
        statements.push(...scripted);
      }
      return statements;
    },
    async applyBatch(events: RecordedEvent[], tx: SqlExecutor): Promise<void> {
      for (const member of members) {
        const mine = events.filter((event) => member.handles.includes(event.type));
        if (mine.length === 0) continue;
        if (member.applyBatch) await member.applyBatch(mine, tx);
        else for (const event of mine) await member.apply(event, tx);
      }
    },
  };
}
