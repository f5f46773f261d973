import { type Clock } from '../../domain/ports/clock.js';
import { storeClock } from '../../commands/shared/store-clock.js';
import type { EventMetadata, EventStore } from '../../domain/ports/event-store.js';
import type { DueSchedules } from '../../domain/ports/due-schedules.js';
import { dedupeIdentityHash, scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { needsEndedActivations } from '../../domain/schedule/ended-activations.js';
import { firedInstants, materialize, type ScheduleTrigger } from '../../domain/schedule/materialization.js';
import { isRoutine, routineLimitFor } from '../../domain/schedule/routine.js';
import { ScheduleConflict } from '../../domain/schedule/schedule-decision.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import type { TriggerKey } from '../../projections/scheduler/due-index.js';
import {
  bindingOf,
  claimDue,
  claimDueTokens,
  dueKeys,
  type DueRow,
  earliestDue,
  nextDueAfter,
  repointDue,
  rowsDueAt,
  stateOf,
  triggerFacts,
} from '../../projections/scheduler/due-rows.js';
import { type DecideFromState, decideFromStream } from '../../commands/scheduler/decide-from-stream.js';
import {
  addDecision,
  DEFAULT_BATCH,
  DEFAULT_CONCURRENCY,
  DEFAULT_STAGE_LEAD_MS,
  emptyStats,
  KEYS_PER_ROUND,
  MAX_ROUNDS,
  STAGE_LIMIT,
  STAGE_SLICE,
  type MaterializerOptions,
  type MaterializeStats,
} from './materializer-options.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { dueSchedulesOf } from './due-schedules.js';
import {
  type DueDecision,
  isTransactional,
  type ScheduleWriter,
  SqlScheduleWriter,
  StoreScheduleWriter,
} from './schedule-writer.js';
import { type ResolvedFire, resolveFire, StagedFires, type StagedFire, stageFire } from './schedule-staging.js';

/**
 * SC-3..SC-6. Each pass reads "now" once and commits each batch in one transaction: its Occurrences (each a new
 * stream: the race decider), the schedule events at the revision the index named, and the index rows
 * compared-and-set. A conflict (another scheduler, an index behind its streams) rolls the batch back and each of
 * its Triggers is decided again from its streams.
 */
export class ScheduleMaterializer {
  readonly name = 'scheduler:materializer';
  private readonly clock: Clock;
  private readonly writer: ScheduleWriter;
  readonly dueSchedules: DueSchedules;
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  private passes = 0;
  private wake: (() => void) | null = null;
  private readonly staged = new StagedFires();

  constructor(private readonly options: MaterializerOptions) {
    this.clock = options.clock ?? storeClock(options.store);
    const { store } = options;
    this.writer = isTransactional(store)
      ? new SqlScheduleWriter(store, options.sql, options.signal)
      : new StoreScheduleWriter(store);
    this.dueSchedules = dueSchedulesOf(options.sql, this.writer);
  }

  get error(): unknown {
    return this.lastError;
  }

  /** Started, and no pass has ended yet, failed or not (readiness, OP-4). */
  get starting(): boolean {
    return this.running && this.passes === 0;
  }

  private get tzdata(): string | null {
    return this.options.tzdataVersion === undefined ? (process.versions.tz ?? null) : this.options.tzdataVersion;
  }

  /** A round that claimed nothing (all taken by other schedulers) ends the pass; a long outage takes more rounds. */
  async runOnce(): Promise<MaterializeStats> {
    const now = (await this.clock.now()).toISOString();
    const stats = emptyStats();
    const claim = this.options.claim ?? 'skip_locked';
    const workers =
      claim === 'none' || !this.writer.transactional ? 1 : (this.options.concurrency ?? DEFAULT_CONCURRENCY);
    const size = this.options.batchSize ?? DEFAULT_BATCH;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const keys = await dueKeys(this.options.sql, now, KEYS_PER_ROUND);
      if (keys.length === 0) break;
      const batches = Array.from({ length: Math.ceil(keys.length / size) }, (_, i) =>
        keys.slice(i * size, (i + 1) * size),
      );
      let progressed = 0;
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let next = batches.shift(); next; next = batches.shift())
            progressed += await this.batch(next, now, claim, stats);
        }),
      );
      if (progressed === 0) break;
    }
    return stats;
  }

  /** Slice by slice until `deadline` (host ms); the loop calls it shortly before each instant. */
  async stage(deadline = Number.POSITIVE_INFINITY): Promise<{ instant: string | null; staged: number }> {
    if (!this.writer.transactional) return { instant: null, staged: 0 };
    const now = await this.clock.now();
    this.staged.prune(now.getTime());
    const instant = await nextDueAfter(this.options.sql, now.toISOString());
    if (instant === null || this.staged.has(instant)) return { instant, staged: 0 };
    const [started, cpu] = [Date.now(), process.cpuUsage()];
    const staged = await this.stageAt(instant, deadline);
    const { user, system } = process.cpuUsage(cpu);
    this.options.onStaged?.(instant, staged, Date.now() - started, (user + system) / 1000);
    return { instant, staged };
  }

  private async stageAt(instant: string, deadline: number): Promise<number> {
    const rows = await rowsDueAt(this.options.sql, instant, STAGE_LIMIT);
    let staged = 0;
    for (let from = 0; from < rows.length && Date.now() < deadline; from += STAGE_SLICE) {
      const fires: StagedFire[] = [];
      for (const row of rows.slice(from, from + STAGE_SLICE)) {
        try {
          const fire = stageFire(row, instant, this.tzdata);
          if (fire) fires.push(fire);
        } catch {
          // left to the pass at the instant, which reports it like any decision that throws
        }
      }
      this.staged.add(instant, fires);
      staged += fires.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return staged;
  }

  decideOne(
    tenant: string,
    triggerId: string,
    now: string,
    decide: DecideFromState,
    metadata?: EventMetadata,
  ): ReturnType<typeof decideFromStream> {
    return decideFromStream(
      { store: this.options.store, schedules: this.dueSchedules },
      tenant,
      triggerId,
      now,
      decide,
      metadata,
    );
  }

  private decide(row: DueRow, now: string): ScheduleEvent[] {
    return materialize(
      { type: 'MaterializeSchedule', trigger: triggerFacts(row), now, tzdataVersion: this.tzdata },
      stateOf(row),
    );
  }

  private async batch(
    keys: readonly TriggerKey[],
    now: string,
    claim: 'skip_locked' | 'none',
    stats: MaterializeStats,
  ): Promise<number> {
    if (!this.writer.transactional) {
      // The index follows these stores through the projection only, so a row may still look due
      // after its decision: progress, not rows seen, ends the pass.
      let progressed = 0;
      for (const row of await claimDue(this.options.sql, keys, now, 'none'))
        progressed += (await this.recover(row, now, stats)) ? 1 : 0;
      return progressed;
    }
    let claimed: TriggerKey[] = [];
    let stale: DueRow[] = [];
    let failed: DueRow[] = [];
    let local = emptyStats();
    let fired: string[] = [];
    try {
      const progressed = await this.options.sql.transaction(async (tx) => {
        stale = [];
        failed = [];
        local = emptyStats();
        const batch = await this.claimBatch(tx, keys, now, claim);
        const log = this.options.store.inTransaction?.(tx) ?? this.options.store;
        claimed = batch.claimed;
        const { rows, taken } = batch;
        const resolved: ResolvedFire[] = taken.map((fire) => resolveFire(fire, now));
        for (const fire of taken) addDecision(local, fire.events);
        local.staged += taken.length;
        const decisions: DueDecision[] = [];
        for (const row of rows) {
          // A new activation needs the activations ended since the recorded state (SC-5), read from the
          // Trigger's stream: rare (a revision, an enable), so it is decided on its own after this batch.
          if (needsEndedActivations(triggerFacts(row), stateOf(row))) {
            stale.push(row);
            continue;
          }
          let events: ScheduleEvent[];
          try {
            events = this.decide(row, now);
          } catch (error) {
            // One Trigger the engine cannot evaluate must not hold back the others of its batch.
            failed.push(row);
            this.options.onError?.(error);
            continue;
          }
          if (events.length === 0) {
            const { state } = row.indexed;
            await repointDue(tx, row, state ? firstInstantAfter(row.schedule, state.boundary) : null);
            continue;
          }
          const context = {
            tzdataVersion: row.indexed.state?.tzdataVersion ?? null,
            routineInstants: row.indexed.routineInstants,
            limit: routineLimitFor(row.triggerId),
          };
          const routine = isRoutine(stateOf(row), events, context);
          // A routine decision from a stale row collides with the Occurrences it would repeat; any other
          // one could skip instants already fired, so it is taken from the streams instead.
          if (!routine && (await unrecordedFire(log, row))) {
            stale.push(row);
            continue;
          }
          addDecision(local, events);
          decisions.push({
            decision: { binding: bindingOf(row), events, expectedRevision: row.indexed.scheduleRevision, now, routine },
            row,
          });
        }
        await this.writer.commit(decisions, tx, resolved);
        fired = [...taken.map((f) => f.instant), ...decisions.flatMap((d) => firedInstants(d.decision.events))];
        return claimed.length - failed.length;
      });
      this.options.signal?.notify();
      this.options.onCommitted?.(fired, now);
      for (const key of Object.keys(local) as (keyof MaterializeStats)[]) stats[key] += local[key];
      stats.failed += failed.length;
      for (const row of stale) await this.recover(row, now, stats);
      return progressed;
    } catch (error) {
      if (!(error instanceof ScheduleConflict)) throw error;
      stats.conflicts += 1;
      // The index is committed with every decision, so re-reading shows each row as it now stands.
      for (const row of claimed) await this.recover(row, now, stats);
      return claimed.length;
    }
  }

  /** Staged rows are claimed by their tokens only; the rest are read whole, to be decided now. */
  private async claimBatch(
    tx: SqlExecutor,
    keys: readonly TriggerKey[],
    now: string,
    claim: 'skip_locked' | 'none',
  ): Promise<{ claimed: TriggerKey[]; rows: DueRow[]; taken: StagedFire[] }> {
    if (!keys.some((k) => this.staged.holds(k))) {
      const rows = await claimDue(tx, keys, now, claim);
      return { claimed: rows, rows, taken: [] };
    }
    const tokens = await claimDueTokens(tx, keys, now, claim);
    const nowMs = Date.parse(now);
    const taken: StagedFire[] = [];
    const fresh: TriggerKey[] = [];
    for (const t of tokens) {
      const fire = this.staged.take(t, nowMs);
      if (fire) taken.push(fire);
      else fresh.push(t);
    }
    // already claimed above (or racing by design with claim 'none'): read without taking locks again
    const rows = fresh.length > 0 ? await claimDue(tx, fresh, now, 'none') : [];
    return { claimed: tokens, rows, taken };
  }

  private async recover(row: TriggerKey, now: string, stats: MaterializeStats): Promise<boolean> {
    const outcome = await this.decideOne(row.tenant, row.triggerId, now, (trigger: ScheduleTrigger, state) =>
      materialize({ type: 'MaterializeSchedule', trigger, now, tzdataVersion: this.tzdata }, state),
    );
    if (outcome.kind === 'decided') {
      addDecision(stats, outcome.events);
      this.options.onCommitted?.(firedInstants(outcome.events), now);
    }
    stats.conflicts += outcome.conflicts;
    return outcome.kind === 'decided';
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        const { failed } = await this.runOnce();
        if (failed > 0) throw new Error(`${failed} due schedule(s) could not be decided`);
        this.passes++;
        this.lastError = null;
        backoff = 100;
        await this.pause(await this.idleFor());
      } catch (error) {
        this.passes++;
        this.lastError = error;
        this.options.onError?.(error);
        backoff = Math.min(backoff * 2, 5_000);
        await this.pause(backoff);
      }
    }
  }

  /** Until the earliest due instant by the database clock; within `stageLeadMs` of it, stages first. */
  private async idleFor(): Promise<number> {
    const maxIdle = this.options.maxIdleMs ?? 500;
    const [due, now] = await Promise.all([earliestDue(this.options.sql), this.clock.now()]);
    if (due === null) return maxIdle;
    let wait = Date.parse(due) - now.getTime();
    const lead = this.options.stageLeadMs ?? DEFAULT_STAGE_LEAD_MS;
    if (wait > 0 && wait <= lead && this.writer.transactional && !this.staged.has(due)) {
      const started = Date.now();
      try {
        await this.stage(started + wait - 50);
      } catch (error) {
        // staging only saves time at the instant: the pass decides whatever was not staged
        this.options.onError?.(error);
      }
      wait -= Date.now() - started;
    }
    return Math.min(maxIdle, Math.max(20, wait));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}

/** A row whose next instant already has its Occurrence is behind its streams (a rebuild) and must not decide skips. */
async function unrecordedFire(log: Pick<EventStore, 'readStream'>, row: DueRow): Promise<boolean> {
  const { state } = row.indexed;
  if (state === null || state.epoch !== row.epoch) return false;
  const next = firstInstantAfter(row.schedule, state.boundary);
  if (next === null) return false;
  const stream = occurrenceStream(dedupeIdentityHash(scheduleIdentity(row.tenant, row, state.epoch, next)));
  return (await log.readStream(stream, { maxCount: 1 })).length > 0;
}

export {
  DEFAULT_BATCH,
  DEFAULT_CONCURRENCY,
  type MaterializerOptions,
  type MaterializeStats,
} from './materializer-options.js';
