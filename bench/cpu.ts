import { readFileSync } from 'node:fs';

/** USER_HZ; 100 on every mainstream Linux build. */
export const CLOCK_TICKS = 100;

/** utime+stime (clock ticks) of each local backend; empty when /proc does not show them (remote database). */
export async function cpuTicks(pids: number[]): Promise<Map<number, number>> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // not local, or already gone
    }
  }
  return ticks;
}

/** Backends that appeared during the run (the pool grew or reconnected) count from zero. */
export function backendMicros(before: Map<number, number>, after: Map<number, number>): number | null {
  if (after.size === 0) return null;
  let ticks = 0;
  after.forEach((t, pid) => (ticks += t - (before.get(pid) ?? 0)));
  return (ticks * 1_000_000) / CLOCK_TICKS;
}
