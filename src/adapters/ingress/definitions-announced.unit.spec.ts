import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import type { EventStore } from '../../domain/ports/event-store.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { SqlClient } from '../../projections/sql-client.js';
import { DefinitionFreshness } from './definition-freshness.js';
import { DefinitionsAnnounced } from './definitions-announced.interceptor.js';
import type { SourceCache } from './source-cache.js';
import type { TriggerBindings } from './trigger-bindings.js';

/**
 * WH-7 across processes: a write's answer leaves only once its change has been announced (NOTIFY) to the other
 * processes, so a delivery sent to one of them the instant the answer arrives finds it told. The announcing channel
 * here is one whose sends finish when the test says (the ordering is the subject, not PostgreSQL).
 */
describe('DefinitionsAnnounced', () => {
  const sends: Array<{ payload: string; finish: () => void }> = [];
  const signal = new AppendSignal();
  const sql = {
    kind: 'postgres',
    notifications: {
      notify: (_topic: string, payload: string) =>
        new Promise<void>((finish) => sends.push({ payload, finish: () => finish() })),
      listen: () => async () => undefined,
    },
  } as unknown as SqlClient;
  const freshness = new DefinitionFreshness(
    signal,
    {} as EventStore,
    sql,
    {} as TriggerBindings,
    { forgetAll: () => undefined } as unknown as SourceCache,
  );
  const answer = (value: unknown) =>
    lastValueFrom(
      new DefinitionsAnnounced(freshness).intercept({} as ExecutionContext, { handle: () => of(value) } as CallHandler),
    );

  it('WH-7 holds the answer of a request that changed a binding until its announcement is sent', async () => {
    let answered = false;
    // The Trigger write's append, as the store tells it, then the handler's result on its way out.
    signal.notify(['TriggerRevised'], 42);
    expect(sends.map((s) => JSON.parse(s.payload) as { position?: number })).toEqual([
      expect.objectContaining({ position: 42 }),
    ]);
    const leaving = answer({ revision: 1 }).then((value) => ((answered = true), value));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    sends.shift()!.finish();
    expect(await leaving).toEqual({ revision: 1 });
  });

  it('lets every other answer through at once: nothing being announced, nothing to wait for', async () => {
    signal.notify(['OccurrenceObserved'], 43);
    expect(sends).toEqual([]);
    expect(freshness.announced()).toBeNull();
    expect(await answer('fired')).toBe('fired');
  });
});
