/**
 * Polling (PO-1..PO-4, issue 17): N poll Triggers (default 1,000) every `--every` seconds (default 5) against a
 * local upstream in a worker thread that answers each poll with 10 new items and a cursor, the service in its own
 * process on PostgreSQL (`reveille serve`). Prints the poll lag (due → the upstream saw the GET) p50/p99/max, polls
 * and items accepted per second, and checks that every item of every completed poll is one Occurrence exactly
 * (none missing, none doubled, none of a page whose poll was not recorded), beside two baselines measured in the
 * same run: 1,000 plain `fetch` GETs of the same upstream, and raw `pg` multi-row INSERTs of the same rows.
 *
 *   node dist/bench/main.js poll [--triggers 1000] [--every 5] [--seconds 60] [--items 10]
 *
 * Due times are the `next_poll_at` each finished poll sets in `poll_due` (a bench-only PostgreSQL trigger logs
 * them); the lag of a due time is the first arrival at the upstream for that Trigger after it was set. A due time
 * never fetched by the end counts with the lag it had reached (a lower bound). The database and the upstream read
 * the same host clock (local PostgreSQL); the offset is printed.
 */
import { benchArgs } from './bench-args.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { rawBatchInsertRate } from './raw-baseline.js';
import { command, type ServiceProcess, startService } from './service-process.js';
import { describeWork, meterWork } from './work-meter.js';

/** Issue 17's target. */
const TARGET = { p99LagMs: 1_000 };
const ITEMS_PER_POLL = 10;

interface Options {
  triggers: number;
  every: number;
  seconds: number;
  /** The poll loop in a process of its own (REVEILLE_BACKGROUND_ONLY), the rest in the service's. */
  pollerProcess: boolean;
}

const log = (line: string) => process.stderr.write(`[poll] ${line}\n`);

export async function pollBench(args: string[]): Promise<void> {
  const options = parse(args);
  const upstream = await startUpstream();
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'reveille-bench-'));
  const db = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const port = 3900 + 2 * Math.floor(Math.random() * 45);
  const service = options.pollerProcess
    ? await startPollerSplit(port, { schema, dataDir })
    : await startService(port, {}, { schema, dataDir });
  let stopped = false;
  await db.connect();
  try {
    const { rows: clock } = await db.query<{ ms: string; version: string }>(
      `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms, split_part(version(), ' on ', 1) AS version`,
    );
    log(
      `${clock[0]!.version}; node ${process.version}; ${options.triggers} Triggers every ${options.every} s for ${options.seconds} s; upstream :${upstream.port}; schema ${schema}; database clock − host clock ≈ ${Number(clock[0]!.ms) - Date.now()} ms`,
    );
    await logDueTimes(db);

    const fetchBaseline = await plainFetchRate(`http://127.0.0.1:${upstream.port}/feed/baseline`, 1_000, 4);
    const rawRows = await rawBatchInsertRate(databaseUrl, schema, 4, 3, ITEMS_PER_POLL + 1);
    log(
      `baselines: 1,000 plain fetch GETs (c=4) in ${fetchBaseline.ms} ms = ${Math.round(fetchBaseline.perSecond)}/s; raw INSERT ${Math.round(rawRows)} rows/s (${ITEMS_PER_POLL + 1} rows per statement, c=4)`,
    );

    await command(service, 'PUT', '/v1/missions/m-bench', {
      state: 'active',
      grants: {
        maxExecutionsPerHour: 100_000,
        maxConcurrent: 10_000,
        resourceScopes: [],
        classification: 'internal',
        acceptLowerTrust: false,
        maxCausalDepth: 4,
      },
    });
    const created = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < options.triggers; i = next++) {
          await command(service, 'PUT', `/v1/triggers/t-${i}`, {
            missionId: 'm-bench',
            type: 'poll',
            poll: {
              connector: 'http-json@1',
              url: `http://127.0.0.1:${upstream.port}/feed/t-${i}`,
              everySeconds: options.every,
              itemsPointer: '/items',
              idPointer: '/id',
              cursorParam: 'cursor',
              nextCursorPointer: '/next',
              onInvalidItem: 'quarantine',
              timeoutSeconds: 10,
            },
          });
        }
      }),
    );
    // Polls due from here on are measured: creating the Triggers (and their first polls) is the warm-up.
    const measureFrom = Date.now();
    log(`${options.triggers} poll Triggers created in ${((measureFrom - created) / 1000).toFixed(1)} s; measuring`);
    const { work } = await meterWork(databaseUrl, { service: service.pids }, async () => {
      for (let s = 0; s < options.seconds; s += 10) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(10, options.seconds - s) * 1000));
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM events WHERE type = 'OccurrenceObserved' AND recorded_at >= to_timestamp($1 / 1000.0)`,
          [measureFrom],
        );
        log(`  +${Math.min(s + 10, options.seconds)} s: ${rows[0]!.n} Occurrences since the window opened`);
      }
    });
    const measureTo = Date.now();
    const arrivals = await upstream.dump();
    // SIGTERM: the poll loop finishes the polls in flight; what is in the log then is what the check reads.
    await service.stop();
    stopped = true;
    const seconds = (measureTo - measureFrom) / 1000;

    const lag = await lags(db, arrivals, measureFrom, measureTo);
    const once = await exactlyOnce(db);
    const { rows: rates } = await db.query<{ occurrences: string; completed: string; failed: string }>(
      `SELECT count(*) FILTER (WHERE type = 'OccurrenceObserved') AS occurrences, count(*) FILTER (WHERE type = 'PollCompleted') AS completed,
              count(*) FILTER (WHERE type = 'PollFailed') AS failed
         FROM events WHERE recorded_at >= to_timestamp($1 / 1000.0) AND recorded_at < to_timestamp($2 / 1000.0)`,
      [measureFrom, measureTo],
    );
    const { rows: failures } = await db.query<{ kind: string; n: string }>(
      `SELECT data->'failure'->>'kind' AS kind, count(*) AS n FROM events WHERE type = 'PollFailed' GROUP BY 1`,
    );
    const accepted = Number(rates[0]!.occurrences) / seconds;
    const polls = Number(rates[0]!.completed) / seconds;
    const offered = options.triggers / options.every;
    log(`  ${describeWork(work, Math.max(1, Number(rates[0]!.completed)))}`.replaceAll('per delivery', 'per poll'));

    const rows = [
      [
        `Reveille: ${options.triggers} poll Triggers every ${options.every} s${options.pollerProcess ? ', poll loop in a process of its own' : ''}`,
        polls.toFixed(0),
        accepted.toFixed(0),
        String(lag.p50),
        String(lag.p99),
        String(lag.max),
        (polls / fetchBaseline.perSecond).toFixed(3),
        (accepted / rawRows).toFixed(3),
      ],
      [
        'offered (every Trigger on time)',
        offered.toFixed(0),
        (offered * ITEMS_PER_POLL).toFixed(0),
        '',
        '',
        '',
        '',
        '',
      ],
      [
        'plain fetch, 1,000 GETs of the same upstream (c=4)',
        fetchBaseline.perSecond.toFixed(0),
        '',
        '',
        '',
        '',
        '1',
        '',
      ],
      [`raw pg INSERT, ${ITEMS_PER_POLL + 1} rows per statement (c=4)`, '', rawRows.toFixed(0), '', '', '', '', '1'],
    ];
    process.stdout.write(
      `\n| what | polls/s | items accepted/s | p50 lag ms | p99 lag ms | max lag ms | ÷ plain fetch | ÷ raw insert |\n|---|---|---|---|---|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n\n`,
    );
    process.stdout.write(
      `window ${seconds.toFixed(1)} s: ${lag.count} due polls measured (${lag.unfetched} never fetched by the end); PollCompleted ${rates[0]!.completed}, PollFailed ${rates[0]!.failed}${failures.length ? ` (whole run: ${failures.map((f) => `${f.kind} ${f.n}`).join(', ')})` : ''}\n`,
    );
    process.stdout.write(
      `exactly once (whole run, ${once.pages} completed pages): ${once.occurrences} Occurrences for ${once.expected} items; missing ${once.missing}, doubled ${once.doubled}, of unrecorded pages ${once.extra}\n`,
    );
    const lagMet = lag.p99 < TARGET.p99LagMs && lag.unfetched === 0;
    const onceMet = once.missing === 0 && once.doubled === 0 && once.extra === 0 && once.occurrences === once.expected;
    process.stdout.write(
      `target p99 lag < ${TARGET.p99LagMs} ms ${lagMet ? 'met' : 'missed'} (${lag.p99} ms); every item accepted exactly once ${onceMet ? 'met' : 'missed'}\n`,
    );
  } finally {
    if (!stopped) await service.stop().catch(() => undefined);
    await upstream.close();
    await db
      .query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      .catch((e: unknown) => log(`could not drop ${schema}: ${String(e)}`));
    await db.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Upstream {
  port: number;
  dump(): Promise<Array<[string, number, number]>>;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const worker = new Worker(new URL('./poll-upstream.js', import.meta.url));
  const first = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const { port } = await first<{ port: number }>();
  return {
    port,
    async dump() {
      const answer = first<{ arrivals: Array<[string, number, number]> }>();
      worker.postMessage('dump');
      return (await answer).arrivals;
    },
    async close() {
      await worker.terminate();
    },
  };
}

/** Logs every due time a finished poll sets (`finishPoll` clears the lease and moves `next_poll_at`). */
async function logDueTimes(db: pg.Client): Promise<void> {
  await db.query(`
    CREATE TABLE bench_poll_due_log (trigger_id text NOT NULL, due_at timestamptz NOT NULL, set_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION bench_log_due() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO bench_poll_due_log (trigger_id, due_at) VALUES (NEW.trigger_id, NEW.next_poll_at);
      RETURN NEW;
    END $$;
    CREATE TRIGGER bench_log_due AFTER UPDATE ON poll_due FOR EACH ROW
      WHEN (NEW.lease_token IS NULL AND OLD.lease_token IS NOT NULL) EXECUTE FUNCTION bench_log_due();`);
}

/** Each due time in the window against the first arrival for its Trigger after it was set. */
async function lags(db: pg.Client, arrivals: Array<[string, number, number]>, from: number, to: number) {
  const byTrigger = new Map<string, number[]>();
  for (const [triggerId, , at] of arrivals) {
    const list = byTrigger.get(triggerId) ?? [];
    list.push(at);
    byTrigger.set(triggerId, list);
  }
  for (const list of byTrigger.values()) list.sort((a, b) => a - b);
  const { rows } = await db.query<{ trigger_id: string; due: string; set: string }>(
    `SELECT trigger_id, (extract(epoch FROM due_at) * 1000)::float8 AS due, (extract(epoch FROM set_at) * 1000)::float8 AS set
       FROM bench_poll_due_log`,
  );
  // A due time in the last 2 s may be fetched after the window closed: those are left out either way.
  const measured = rows.filter((r) => Number(r.due) >= from && Number(r.due) <= to - 2_000);
  const values: number[] = [];
  let unfetched = 0;
  for (const row of measured) {
    const list = byTrigger.get(row.trigger_id) ?? [];
    const set = Number(row.set);
    const arrival = list.find((at) => at >= set);
    if (arrival === undefined) unfetched++;
    values.push(Math.max(0, (arrival ?? to) - Number(row.due)));
  }
  values.sort((a, b) => a - b);
  const q = (p: number) =>
    values.length ? Math.round(values[Math.min(values.length - 1, Math.floor(p * values.length))]!) : 0;
  return {
    count: values.length,
    unfetched,
    p50: q(0.5),
    p99: q(0.99),
    max: values.length ? Math.round(values[values.length - 1]!) : 0,
  };
}

/**
 * Pages 0..c−1 of a Trigger are those its PollCompleted events moved the cursor past (c = the highest `to`):
 * each of their items must be exactly one Occurrence, and no item of a later page (served, never recorded) one.
 */
async function exactlyOnce(db: pg.Client) {
  const { rows } = await db.query<
    Record<'pages' | 'expected' | 'occurrences' | 'missing' | 'doubled' | 'extra', string>
  >(`
    WITH completed AS (
      SELECT data->>'triggerId' AS trigger_id, max((data->'cursor'->>'to')::int) AS pages
        FROM events WHERE type = 'PollCompleted' GROUP BY 1),
    seen AS (
      SELECT data->>'triggerId' AS trigger_id, data->>'externalId' AS item, count(*) AS n
        FROM events WHERE type = 'OccurrenceObserved' GROUP BY 1, 2),
    judged AS (
      SELECT s.*, split_part(s.item, '.', 1)::int < coalesce(c.pages, 0) AS of_completed
        FROM seen s LEFT JOIN completed c USING (trigger_id))
    SELECT (SELECT coalesce(sum(pages), 0) FROM completed) AS pages,
           (SELECT coalesce(sum(pages), 0) * ${ITEMS_PER_POLL} FROM completed) AS expected,
           (SELECT coalesce(sum(n), 0) FROM seen) AS occurrences,
           (SELECT coalesce(sum(pages), 0) * ${ITEMS_PER_POLL} FROM completed) - (SELECT count(*) FROM judged WHERE of_completed) AS missing,
           (SELECT coalesce(sum(n - 1), 0) FROM seen) AS doubled,
           (SELECT count(*) FROM judged WHERE NOT of_completed) AS extra`);
  const r = rows[0]!;
  return {
    pages: Number(r.pages),
    expected: Number(r.expected),
    occurrences: Number(r.occurrences),
    missing: Number(r.missing),
    doubled: Number(r.doubled),
    extra: Number(r.extra),
  };
}

/** The upstream alone: `count` plain fetch GETs at `concurrency`, bodies read. */
async function plainFetchRate(url: string, count: number, concurrency: number) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await (await fetch(`${url}?cursor=${i}`)).json();
    }),
  );
  const ms = Math.round(performance.now() - started);
  return { ms, perSecond: (count * 1000) / ms };
}

function parse(args: string[]): Options {
  const given = benchArgs('poll', args, {
    values: ['--triggers', '--every', '--seconds'],
    flags: ['--poller-process'],
  });
  const positive = { min: 1, integer: true };
  return {
    triggers: given.number('--triggers', 1_000, positive),
    every: given.number('--every', 5, positive),
    seconds: given.number('--seconds', 60, positive),
    pollerProcess: given.flag('--poller-process'),
  };
}

/** Every background task `serve` runs but the poll loop (as its readiness lists them). */
const ALL_BUT_POLLER = [
  'projection:occurrences',
  'projection:source-bindings',
  'projection:schedules',
  'projection:pending-executions',
  'projection:executions',
  'projection:polls',
  'projection:batches',
  'projection:lineage',
  'projection:subscriptions',
  'projection:coalescing',
  'dispatcher:wakeups',
  'processor:admission',
  'timers:batches',
  'timers:coalesce',
  'timers:delivery',
  'timers:subscriptions',
  'scheduler:materializer',
];

/**
 * The roles split as README's REVEILLE_BACKGROUND_ONLY allows: the service as `serve` runs it without the poll
 * loop, and a second process on the same schema running only the poll loop on its own event loop. Both count
 * as the service (CPU). The service must list every other task, or the run would measure a service missing one.
 */
async function startPollerSplit(port: number, shared: { schema: string; dataDir: string }): Promise<ServiceProcess> {
  const main = await startService(port, { REVEILLE_BACKGROUND_ONLY: ALL_BUT_POLLER.join(',') }, shared);
  const poller = await startService(
    port + 1,
    { REVEILLE_BACKGROUND: 'on', REVEILLE_BACKGROUND_ONLY: 'poller:poll' },
    shared,
  );
  const running = async (service: ServiceProcess) =>
    ((await (await fetch(`${service.baseUrl}/health/ready`)).json()) as any).info.subscriptions.running as string[];
  const tasks = [...(await running(main)), ...(await running(poller))];
  log(
    `split: ${tasks.length} tasks running across both processes; the poll loop in its own: ${tasks.includes('poller:poll')}`,
  );
  return {
    ...main,
    pids: [...main.pids, ...poller.pids],
    async stop() {
      await poller.stop();
      await main.stop();
    },
  };
}
