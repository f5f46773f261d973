import fc from 'fast-check';
import type { CoalesceEvent } from '../coalescing/index.js';
import { OCCURRENCE_DECISION_TYPES, type OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { type Append, ModelStore, RULES } from './coalescing.fixtures.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const WINDOW_MS = RULES[0]!.windowMs;

type Kind = 'sample' | 'revoke' | 'other';
interface Arrival {
  gapMs: number;
  host: 'h1' | 'h2';
  kind: Kind;
  /** A payload time, forged at will: nothing may order by it (DD-5). */
  at: string;
}
type Step =
  | { kind: 'tick'; ms: number }
  | { kind: 'admit'; k: number }
  | { kind: 'crash'; k: number }
  | { kind: 'timer' }
  | { kind: 'race' }
  | { kind: 'raceAdmitTimer'; k: number };

const arrival = fc.record<Arrival>({
  gapMs: fc.integer({ min: 0, max: 700 }),
  host: fc.constantFrom('h1', 'h2'),
  kind: fc.constantFrom<Kind>('sample', 'sample', 'sample', 'sample', 'revoke', 'other'),
  at: fc.constantFrom('2999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', '2026-03-01T10:00:00Z', 'not a time'),
});
const step = fc.oneof(
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
  fc.record({ kind: fc.constant('admit' as const), k: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('crash' as const), k: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('timer' as const) }),
  fc.record({ kind: fc.constant('race' as const) }),
  fc.record({ kind: fc.constant('raceAdmitTimer' as const), k: fc.integer({ min: 1, max: 6 }) }),
);

const inputOf = (a: Arrival, i: number) =>
  a.kind === 'other'
    ? { type: 'deploy', host: a.host, at: a.at, i }
    : { type: 'health.sample', host: a.host, at: a.at, i, ...(a.kind === 'revoke' ? { action: 'revoke' } : {}) };

/**
 * Runs arrivals and a script of admission passes, crashes before commit (a restart: the store is all that is
 * left), timer passes and racing closers against the model store; then lets every window pass and closes all.
 */
function simulate(arrivals: readonly Arrival[], script: readonly Step[]) {
  const store = new ModelStore();
  const times: number[] = [];
  arrivals.reduce((t, a) => (times.push(t + a.gapMs), t + a.gapMs), T0);
  const streams: string[] = [];
  let now = T0;
  let processed = 0;
  let doubleClose = false;
  const iso = () => new Date(now).toISOString();
  const accept = () => {
    while (streams.length < arrivals.length && times[streams.length]! <= now) {
      const i = streams.length;
      streams.push(store.observe(`k-${i}`, inputOf(arrivals[i]!, i), new Date(times[i]!).toISOString()));
    }
  };
  const batch = (k: number) => streams.slice(processed, processed + k);
  const admit = (k: number) => {
    const next = batch(k);
    if (next.length > 0 && store.commit(store.admission(next, iso()))) processed += next.length;
  };
  const timerAppends = (): Append[][] => store.dueGroups(iso()).map((member) => store.admission([member], iso()));
  const timer = () => timerAppends().forEach((appends) => store.commit(appends));
  accept();
  for (const s of script) {
    if (s.kind === 'tick') {
      now += s.ms;
      accept();
    } else if (s.kind === 'admit') admit(s.k);
    else if (s.kind === 'crash') store.admission(batch(s.k), iso());
    else if (s.kind === 'timer') timer();
    else if (s.kind === 'race') {
      // Two processes closing the same due group from the same read: one lands, the other appends nothing.
      for (const appends of timerAppends()) {
        const first = store.commit(appends);
        const second = store.commit(appends);
        if (appends.length > 0 && first && second) doubleClose = true;
      }
    } else {
      const admission = store.admission(batch(s.k), iso());
      const closes = timerAppends();
      closes.forEach((appends) => store.commit(appends));
      if (batch(s.k).length > 0 && store.commit(admission)) processed += batch(s.k).length;
    }
  }
  // Everything arrives, every window passes, admission catches up and the timer closes what is left.
  now += arrivals.reduce((t, a) => t + a.gapMs, 0) + 10 * WINDOW_MS;
  accept();
  for (let guard = 0; processed < streams.length && guard < 1000; guard++) admit(6);
  for (let guard = 0; store.dueGroups(iso()).length > 0 && guard < 1000; guard++) timer();
  return { store, streams, times, doubleClose };
}

describe('DD-5 coalescing never loses or duplicates a member (model store, random arrival, restarts, racing closers)', () => {
  it('DD-5 AD-1 every Occurrence is decided exactly once; groups partition the samples in acceptance order', () => {
    fc.assert(
      fc.property(
        fc.array(arrival, { minLength: 1, maxLength: 25 }),
        fc.array(step, { maxLength: 60 }),
        (arrivals, script) => {
          const { store, streams, times, doubleClose } = simulate(arrivals, script);
          expect(doubleClose).toBe(false);
          const index = new Map(streams.map((s, i) => [store.occurrence(s), i] as const));
          const idOf = (i: number) => {
            const state = store.occurrence(streams[i]!);
            return state.status === 'absent' ? '' : state.occurrence.occurrenceId;
          };
          const byId = new Map(streams.map((_, i) => [idOf(i), i]));
          expect(index.size).toBe(arrivals.length);
          // One decision per Occurrence (AD-1); a revoke or an unmatched one is never held (decided alone at once).
          streams.forEach((streamId, i) => {
            const events = store.streams.get(streamId) as OccurrenceEvent[];
            expect(events.filter((e) => OCCURRENCE_DECISION_TYPES.includes(e.type))).toHaveLength(1);
            if (arrivals[i]!.kind !== 'sample')
              expect(events.map((e) => e.type)).toEqual(['OccurrenceObserved', 'OccurrenceAdmitted']);
          });
          const groups = [...store.streams]
            .filter(([id]) => id.startsWith('coalesce-'))
            .flatMap(([, events]) => (events as CoalesceEvent[]).filter((e) => e.type === 'CoalesceGroupClosed'))
            .map((e) => (e as Extract<CoalesceEvent, { type: 'CoalesceGroupClosed' }>).data);
          // Every sample is in exactly one closed group, and nothing else is.
          const members = groups.flatMap((g) => g.members.map((id) => byId.get(id)!));
          const samples = arrivals.flatMap((a, i) => (a.kind === 'sample' ? [i] : []));
          expect([...members].sort((a, b) => a - b)).toEqual(samples);
          for (const group of groups) {
            const at = group.members.map((id) => byId.get(id)!);
            // Acceptance order within the group, one host, all within the window of the first member.
            expect(at).toEqual([...at].sort((a, b) => a - b));
            expect(new Set(at.map((i) => arrivals[i]!.host)).size).toBe(1);
            for (const i of at) expect(times[i]! - times[at[0]!]!).toBeLessThan(WINDOW_MS);
            // The last accepted stands for the group, with the immutable members list; the others point at it.
            const last = group.members[group.members.length - 1]!;
            expect(group.representative).toBe(last);
            const lastEvents = store.streams.get(streams[byId.get(last)!]!) as OccurrenceEvent[];
            expect(lastEvents.find((e) => e.type === 'OccurrenceAdmitted')?.data).toMatchObject({
              members: group.members,
            });
            for (const id of group.members.slice(0, -1)) {
              const coalesced = (store.streams.get(streams[byId.get(id)!]!) as OccurrenceEvent[]).find(
                (e) => e.type === 'OccurrenceCoalesced',
              );
              expect(coalesced?.data).toMatchObject({ reason: 'coalesced', evidence: { coalescedInto: last } });
            }
          }
          // Groups of one host never interleave: each is a run of that host's samples in acceptance order.
          for (const host of ['h1', 'h2']) {
            const runs = groups
              .map((g) => g.members.map((id) => byId.get(id)!))
              .filter((at) => arrivals[at[0]!]!.host === host)
              .sort((a, b) => a[0]! - b[0]!);
            for (let r = 1; r < runs.length; r++)
              expect(runs[r - 1]![runs[r - 1]!.length - 1]!).toBeLessThan(runs[r]![0]!);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
