import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlExecutor } from '../sql-client.js';
import { foldingOf, occurrenceViews, projections } from '../index.js';
import type { Projection } from './projection.js';
import { foldedTogether } from './projection-group.js';

const event = (type: string, position: number) => ({ type, position }) as RecordedEvent;
const tx = {} as SqlExecutor;

function recording(name: string, handles: string[], seen: string[], options: Partial<Projection> = {}): Projection {
  return {
    name,
    handles,
    migrations: [{ id: `${name === 'a' ? '0200' : '0100'}_${name}`, sql: '' }],
    tables: [`rm_${name}`],
    async apply(e) {
      seen.push(`${name}.apply:${e.position}`);
    },
    ...options,
  };
}

describe('read models folded together (one transaction, one checkpoint)', () => {
  it('folds members in the order given, each with only the events it handles, batched where it can', async () => {
    const seen: string[] = [];
    const a = recording('a', ['X', 'Y'], seen, {
      applyBatch: async (events) => void seen.push(`a.batch:${events.map((e) => e.position).join(',')}`),
    });
    const b = recording('b', ['Y', 'Z'], seen);
    const group = foldedTogether('ab', [a, b]);
    await group.applyBatch!([event('X', 1), event('Y', 2), event('Z', 3), event('W', 4)], tx);
    expect(seen).toEqual(['a.batch:1,2', 'b.apply:2', 'b.apply:3']);
    seen.length = 0;
    await group.apply(event('Y', 5), tx);
    expect(seen).toEqual(['a.apply:5', 'b.apply:5']);
  });

  it('reads what any member handles, leaves out only payload paths no member reads, and orders migrations by id', () => {
    const a = recording('a', ['X'], [], { omitsData: [['input'], ['request', 'input']] });
    const b = recording('b', ['Z', 'X'], [], { omitsData: [['input']] });
    const group = foldedTogether('ab', [a, b]);
    expect(group.handles).toEqual(['X', 'Z']);
    expect(group.omitsData).toEqual([['input']]);
    expect(group.migrations.map((m) => m.id)).toEqual(['0100_b', '0200_a']);
    expect(group.tables).toEqual(['rm_a', 'rm_b']);
  });

  it('OP-1 OP-2 trigger health folds with the Occurrence explorer, before it; either name finds the group', () => {
    expect(occurrenceViews.members!.map((m) => m.name)).toEqual(['trigger-health', 'occurrences']);
    expect(foldingOf('trigger-health')).toBe(occurrenceViews);
    expect(foldingOf('occurrences')).toBe(occurrenceViews);
    expect(foldingOf('schedules')?.name).toBe('schedules');
    expect(foldingOf('nope')).toBeUndefined();
    expect(projections.map((p) => p.name)).not.toContain('trigger-health');
  });
});
