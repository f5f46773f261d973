import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { CLOCK_TICKS, cpuTicks } from './cpu.js';

export interface Work {
  /** CPU µs of each named process group over the window. */
  cpuMicros: Record<string, number>;
  /** The database's own counters over the window (pg_stat_database). */
  transactions: number;
  rowsInserted: number;
  rowsUpdated: number;
  rowsRead: number;
  /** The tables read most over the window: rows from sequential scans and index fetches. */
  mostRead: { table: string; seqScans: number; rowsRead: number }[];
}

/** Every local PostgreSQL process (backends, WAL writer, checkpointer): the database's whole share of the CPU. */
function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const TABLES = `SELECT schemaname || '.' || relname AS table, seq_scan, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows_read FROM pg_stat_all_tables`;

const COUNTERS = `SELECT xact_commit + xact_rollback AS transactions, tup_inserted, tup_updated, tup_returned + tup_fetched AS rows_read
                    FROM pg_stat_database WHERE datname = current_database()`;

/**
 * Where the CPU and the database work of a window went, so a bench can print per-delivery costs by
 * role beside its rates. pg_stat_database is refreshed by each backend at transaction end and read
 * after pg_stat_clear_snapshot(), so the figures are close, not exact.
 */
export async function meterWork<T>(
  databaseUrl: string,
  groups: Record<string, number[]>,
  run: () => Promise<T>,
): Promise<{ result: T; work: Work }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const counters = async () => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const tables = new Map(
        (await client.query(TABLES)).rows.map((r) => [
          r.table as string,
          { seqScans: Number(r.seq_scan), rowsRead: Number(r.rows_read) },
        ]),
      );
      const totals = (await client.query(COUNTERS)).rows[0] as Record<
        'transactions' | 'tup_inserted' | 'tup_updated' | 'rows_read',
        string
      >;
      return { ...totals, tables };
    };
    const pids = { ...groups, postgres: postgresPids() };
    const before = await Promise.all(Object.values(pids).map((p) => cpuTicks(p)));
    const startCounters = await counters();
    const ownCpu = process.cpuUsage();
    const result = await run();
    const own = process.cpuUsage(ownCpu);
    const endCounters = await counters();
    // Backends that start during the window count from zero.
    const after = await Promise.all(
      Object.entries(pids).map(([name, p]) => cpuTicks(name === 'postgres' ? postgresPids() : p)),
    );
    const cpuMicros: Record<string, number> = {};
    Object.keys(pids).forEach((name, i) => {
      let ticks = 0;
      after[i]!.forEach((t, pid) => (ticks += t - (before[i]!.get(pid) ?? 0)));
      cpuMicros[name] = (ticks * 1_000_000) / CLOCK_TICKS;
    });
    cpuMicros['load generator'] = own.user + own.system; // this process: process.cpuUsage, not /proc
    const delta = (name: 'transactions' | 'tup_inserted' | 'tup_updated' | 'rows_read') =>
      Number(endCounters[name]) - Number(startCounters[name]);
    const mostRead = [...endCounters.tables]
      .map(([table, end]) => {
        const start = startCounters.tables.get(table) ?? { seqScans: 0, rowsRead: 0 };
        return { table, seqScans: end.seqScans - start.seqScans, rowsRead: end.rowsRead - start.rowsRead };
      })
      .sort((a, b) => b.rowsRead - a.rowsRead)
      .slice(0, 4);
    return {
      result,
      work: {
        cpuMicros,
        transactions: delta('transactions'),
        rowsInserted: delta('tup_inserted'),
        rowsUpdated: delta('tup_updated'),
        rowsRead: delta('rows_read'),
        mostRead,
      },
    };
  } finally {
    await client.end();
  }
}

/** One line: CPU µs per unit of work by process group, and database transactions and rows per unit. */
export function describeWork(work: Work, units: number): string {
  const cpu = Object.entries(work.cpuMicros)
    .map(([name, micros]) => `${name} ${Math.round(micros / units)}`)
    .join(', ');
  const per = (n: number) => (n / units).toFixed(1);
  const tables = work.mostRead.map((t) => `${t.table} ${per(t.rowsRead)} (${t.seqScans} seq scans)`).join(', ');
  return `CPU µs per delivery: ${cpu}; per delivery ${per(work.transactions)} transactions, ${per(work.rowsInserted)} rows inserted, ${per(work.rowsUpdated)} updated, ${per(work.rowsRead)} read (most from ${tables})`;
}
