import type { InstantRange, SkipCause } from './schedule-events.js';
import type { MissedSettings } from './schedule-definition.js';

/** What the missed policy makes of one run of missed instants (SC-5). */
export interface MissedOutcome {
  fire: string[];
  skipped: { range: InstantRange; cause: SkipCause } | null;
  held: InstantRange | null;
  /** Catch-up fires spent on the run so far, when the run goes on beyond what was scanned. */
  runFired: number | null;
}

export interface MissedRun {
  /** Missed instants in increasing order; contiguous in the schedule's sequence. */
  missed: readonly string[];
  /** Catch-up fires already spent on this run by an earlier decision (0 for a new run). */
  alreadyFired: number;
  /** True when the scan stopped inside the run: more missed instants follow the last one given. */
  continues: boolean;
}

const range = (instants: readonly string[]): InstantRange => ({
  from: instants[0]!,
  to: instants[instants.length - 1]!,
  count: instants.length,
});

/**
 * `latest` fires only the newest of the whole run, so nothing while it continues; `catch_up` fires the oldest, up
 * to `bound` for the whole run, never a burst. Instants are never collapsed: each keeps its own identity.
 */
export function applyMissedPolicy(settings: MissedSettings, run: MissedRun): MissedOutcome {
  const { missed } = run;
  if (missed.length === 0)
    return { fire: [], skipped: null, held: null, runFired: run.continues ? run.alreadyFired : null };
  switch (settings.policy) {
    case 'skip':
      return { fire: [], skipped: { range: range(missed), cause: 'skip' }, held: null, runFired: null };
    case 'latest': {
      if (run.continues)
        return { fire: [], skipped: { range: range(missed), cause: 'latest' }, held: null, runFired: null };
      const rest = missed.slice(0, -1);
      return {
        fire: [missed[missed.length - 1]!],
        skipped: rest.length > 0 ? { range: range(rest), cause: 'latest' } : null,
        held: null,
        runFired: null,
      };
    }
    case 'catch_up': {
      const room = Math.max(0, (settings.bound ?? 1) - run.alreadyFired);
      const fire = missed.slice(0, room);
      const rest = missed.slice(room);
      const runFired = run.continues ? run.alreadyFired + fire.length : null;
      if (rest.length === 0) return { fire, skipped: null, held: null, runFired };
      if ((settings.overflow ?? 'hold') === 'hold') return { fire, skipped: null, held: range(rest), runFired };
      return { fire, skipped: { range: range(rest), cause: 'overflow' }, held: null, runFired };
    }
    default: {
      const _: never = settings.policy;
      throw new Error('unknown missed policy');
    }
  }
}
