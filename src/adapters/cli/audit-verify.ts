import { isResumable } from '../../commands/audit/audit-reads.js';
import { verifyLog } from '../../commands/audit/verify-log.js';
import type { AuditRule, AuditViolation, RuleTally } from '../../domain/audit/audit-rules.js';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';
import { checkReadModels, type TableComparison } from '../../projections/audit/read-model-check.js';
import { projections } from '../../projections/index.js';
import { PageChannel } from '../../projections/runner/page-channel.js';
import { REBUILD_BATCH } from '../../projections/runner/rebuild.js';
import type { SqlClient } from '../../projections/sql-client.js';
import { loadConfig } from '../config/config.js';
import { openExistingInfrastructure } from '../eventstore/infrastructure.js';
import { eventStoreMigrations, runMigrations } from '../eventstore/sql/migrations.js';
import type { UpcasterRegistry } from '../eventstore/upcasters.js';
import { stringOption, UsageError } from './args.js';
import { LOG_PASS_THREAD, ThreadLogChecker } from './audit-log-pass.js';
import type { Composition } from './composition.js';
import { exitCodeFor } from './exit-codes.js';
import { progressGroup } from './progress.js';

/**
 * What `reveille audit verify --json` prints; `ok` is false exactly when it exits 1 (violations). `complete` is
 * false when some read model could not be compared (its live checkpoint was not where the rebuild ended: a service
 * folding meanwhile, or one behind the log that nothing folded): it exits 3 then.
 */
export interface VerifyReport {
  ok: boolean;
  complete: boolean;
  from: number;
  events: number;
  streams: number;
  /**
   * The log pass (chains and replay); the read models' rebuild and comparison, run beside it, take readModelSeconds.
   * From position 0 the rebuild folds the pages this pass reads, so the pass goes at the pace of the slower of both.
   */
  seconds: number;
  eventsPerSecond: number;
  readModelSeconds: number;
  violations: number;
  byRule: Partial<Record<AuditRule, RuleTally>>;
  /** In log order; the first 1000. */
  listed: AuditViolation[];
  readModels: TableComparison[];
}

export interface VerifyTarget {
  sql: SqlClient;
  store: EventStore;
  upcasters: UpcasterRegistry;
}

/** How far the log pass may read ahead of the slowest read model's fold, in pages. */
const SHARED_PAGES_AHEAD = 4;

/** AU-2: the log's chains, the domain replay and invariants, and beside them the read models rebuilt and compared. */
export async function auditVerify(
  target: VerifyTarget,
  options: {
    from?: number;
    showProgress?: boolean;
    /** The log pass's thread entry (the build's LOG_PASS_THREAD): from position 0, the pass runs there. */
    logPassThread?: URL;
  } = {},
): Promise<VerifyReport> {
  const from = options.from ?? 0;
  const bars = options.showProgress ? progressGroup() : null;
  const upcast = (event: RecordedEvent) => target.upcasters.upcast(event);
  // From position 0 the rebuild folds the pages the log pass reads: one read of the log instead of three.
  const shared = from === 0 ? new PageChannel(SHARED_PAGES_AHEAD) : null;
  const share = async (events: readonly RecordedEvent[]) =>
    shared?.put({ events: events.map(upcast), scanned: events.length, last: events[events.length - 1]!.position });
  // The log pass spends node's CPU, the rebuilds PostgreSQL's: run side by side, the whole takes the longer of both.
  const logPass = async () => {
    const started = performance.now();
    const bar = bars?.bar('audit verify', Math.max((await target.store.headPosition()) - from, 0));
    const checker = from === 0 && options.logPassThread ? new ThreadLogChecker(upcast, options.logPassThread) : null;
    try {
      const result = await verifyLog(target.store, {
        from,
        upcast,
        ...(checker ? { checker } : {}),
        // The rebuild's own page size: larger pages cost its folds more than they save.
        pageSize: shared ? REBUILD_BATCH : undefined,
        onPage: share,
        onProgress: (checked) => bar?.update(checked),
      });
      shared?.end();
      return { result, seconds: (performance.now() - started) / 1000 };
    } catch (error) {
      // The rebuild must not fold a log cut short: it stops too.
      shared?.break();
      throw error;
    } finally {
      bar?.stop();
      await checker?.close();
    }
  };
  const readModelPass = async () => {
    const started = performance.now();
    // The folds report the position they reached: a bar of the head's position.
    const total = bars ? await target.store.headPosition() : 0;
    const rebuilds = new Map<string, { update(done: number): void; stop(): void }>();
    const comparisons = await checkReadModels(target.sql, target.store, projections, {
      pages: shared ?? undefined,
      // The checkpoints table; the scratch copy of the events table stays empty.
      migrations: eventStoreMigrations,
      run: (sql, migrations) => runMigrations(sql, migrations),
      onProgress: bars
        ? (name, _scanned, reached) => {
            let bar = rebuilds.get(name);
            if (!bar) rebuilds.set(name, (bar = bars.bar(`rebuild ${name} (scratch schema)`, total)));
            bar.update(reached);
          }
        : undefined,
    });
    rebuilds.forEach((bar) => bar.stop());
    return { comparisons, seconds: (performance.now() - started) / 1000 };
  };
  // A read-model pass that failed before its rebuild took the pages must not hold the log pass at a full channel.
  const readModelPassReleasing = () => readModelPass().finally(() => shared?.break());
  // Both settle before anything is thrown: the read-model pass drops its scratch schema on the way out.
  const [logDone, readModelsDone] = await Promise.allSettled([logPass(), readModelPassReleasing()]);
  bars?.stop();
  if (logDone.status === 'rejected') throw logDone.reason;
  if (readModelsDone.status === 'rejected') throw readModelsDone.reason;
  const { result: log, seconds } = logDone.value;
  const { comparisons: readModels, seconds: readModelSeconds } = readModelsDone.value;
  const differing = readModels.filter((table) => table.status === 'differs');
  const byRule = { ...log.byRule };
  if (differing.length > 0) byRule.read_model_mismatch = { count: differing.length, firstPositions: [] };
  const violations = log.violations + differing.length;
  return {
    ok: violations === 0,
    complete: readModels.every((table) => table.status !== 'not_compared'),
    from,
    events: log.events,
    streams: log.streams,
    seconds: Math.round(seconds * 1000) / 1000,
    eventsPerSecond: seconds > 0 ? Math.round(log.events / seconds) : log.events,
    readModelSeconds: Math.round(readModelSeconds * 1000) / 1000,
    violations,
    byRule,
    listed: log.listed,
    readModels,
  };
}

/** One line per violation naming rule, stream and position, then the summary. */
export function formatReport(report: VerifyReport): string {
  const lines: string[] = [];
  for (const v of report.listed)
    lines.push(`violation ${v.rule}: stream ${v.streamId} position ${v.position} revision ${v.revision} — ${v.detail}`);
  if (report.listed.length < report.violations - (report.byRule.read_model_mismatch?.count ?? 0))
    lines.push(`… ${report.violations - report.listed.length} more (see --json for the counts)`);
  for (const t of report.readModels.filter((table) => table.status !== 'equal'))
    lines.push(
      t.status === 'differs'
        ? `violation read_model_mismatch: read model ${t.projection} table ${t.table} — ${t.onlyLive} row(s) only live, ${t.onlyRebuilt} only rebuilt; ${t.detail ?? ''}`
        : `read model ${t.projection} table ${t.table} not compared: ${t.detail ?? ''}`,
    );
  lines.push(
    `checked ${report.events} events in ${report.streams} streams from position ${report.from} in ${report.seconds} s (${report.eventsPerSecond} events/s)`,
  );
  const equal = report.readModels.filter((table) => table.status === 'equal').length;
  lines.push(
    `read models: ${equal} of ${report.readModels.length} tables equal to a rebuild from position 0 (${report.readModelSeconds} s)`,
  );
  const notCompared = report.readModels.filter((table) => table.status === 'not_compared').length;
  const rules = Object.entries(report.byRule) as Array<[AuditRule, RuleTally]>;
  if (rules.length === 0) lines.push(notCompared > 0 ? 'no violations in what was checked' : 'no violations');
  for (const [rule, tally] of rules)
    lines.push(
      `${rule}: ${tally.count}${tally.firstPositions.length ? ` (first at position ${tally.firstPositions.join(', ')})` : ''}`,
    );
  if (notCompared > 0)
    lines.push(
      `INCOMPLETE: ${notCompared} of ${report.readModels.length} read-model tables NOT COMPARED (the live read models were not where the rebuild ended: a service folding meanwhile, or read models behind the log that no running service has caught up); let a service catch them up, then run again while no service writes to verify them`,
    );
  return `${lines.join('\n')}\n`;
}

const POSITION = /^(0|[1-9][0-9]{0,15})$/;

/**
 * The check could not run (the store is unreachable, or a server holds the embedded one): not a finding about the
 * log, so never exit 1.
 */
export class NotVerified extends Error {
  override readonly name = 'NotVerified';
}

/**
 * `reveille audit verify [--from P] [--json]`: exit code 1 on any violation, 3 when no violation was found but some
 * read model could not be compared, 2 when nothing could be checked (usage, no store there, store unreachable, an
 * embedded store a server holds, the log held back, a crash).
 * It creates and migrates nothing: an empty, typo'd or outdated store is refused.
 */
export async function auditVerifyCommand(options: Record<string, string | true>, composition: Composition) {
  const fromText = stringOption(options, 'from');
  if (fromText !== undefined && !(POSITION.test(fromText) && Number.isSafeInteger(Number(fromText))))
    throw new UsageError('--from needs a store position (a non-negative integer)');
  const json = options.json === true;
  try {
    const infra = await openExistingInfrastructure(loadConfig(), await composition.migrations());
    try {
      if (fromText !== undefined && !(await isResumable(infra.store, Number(fromText))))
        throw new UsageError(`--from ${fromText}: the log holds no event at this position`);
      const report = await auditVerify(infra, {
        from: fromText === undefined ? 0 : Number(fromText),
        showProgress: !json || process.stderr.isTTY,
        logPassThread: LOG_PASS_THREAD,
      });
      process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      process.exitCode = !report.ok ? 1 : !report.complete ? 3 : 0;
    } finally {
      await infra.close();
    }
  } catch (error) {
    // Whatever stopped it before a report (an unreachable store, one a server holds, a bug), nothing was verified:
    // exit 2, never 1, which says "violations found". A bug still shows its stack.
    const code = exitCodeFor(error);
    if (code === 2) throw error;
    if (code === undefined) process.stderr.write(`${(error as Error | null)?.stack ?? String(error)}\n`);
    throw new NotVerified(`could not verify: ${(error as Error | null)?.message ?? String(error)}`);
  }
}
