import { databaseOutage } from './database-outage.js';
import { BenchUsage } from '../bench-args.js';
import { hostileFuzz } from './hostile-fuzz.js';
import { killStorm } from './kill-storm.js';

const SKIPPABLE = ['kills', 'outage', 'fuzz'];

interface Options {
  deliveries: number;
  kills: number;
  fuzzRounds: number;
  outageMs: number;
  seconds: number;
  skip: Set<string>;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `npm run chaos`: the fault suite. A SIGKILL storm under signed deliveries, PostgreSQL stopped and started
 * under load (a cluster of its own), and hostile content over ingress and REST. Prints what a producer and
 * an auditor would check, and exits 1 on any loss, duplicate, undecided Occurrence or 5xx (503 excepted
 * while the database is down).
 */
export async function chaosBench(args: string[]): Promise<void> {
  const options = parse(args);
  const failures: string[] = [];
  const check = (name: string, figures: Partial<Record<string, unknown>>) => {
    for (const key of ['lost', 'duplicated', 'undecided', 'serverErrors', 'gaveUp'])
      if (Number(figures[key] ?? 0) > 0) failures.push(`${name}: ${key} ${String(figures[key])}`);
  };

  if (!options.skip.has('kills')) {
    log(`SIGKILL storm: ${options.deliveries} signed deliveries, ${options.kills} kills`);
    const storm = await killStorm({ deliveries: options.deliveries, kills: options.kills, log });
    log(
      `  ${storm.kills} kills; acked ${storm.acked}, lost ${storm.lost}, duplicated ${storm.duplicated}, undecided ${storm.undecided}; ` +
        `5xx ${storm.serverErrors} (+${storm.unavailable} 503), connection errors ${storm.connectionErrors}, ` +
        `longest recovery ${storm.maxRecoveryMs} ms, peak RSS ${storm.peakRssMiB} MiB, ${storm.seconds.toFixed(1)} s`,
    );
    check('kills', { ...storm });
    if (storm.kills < options.kills)
      failures.push(`kills: the storm ended after ${storm.kills} of ${options.kills} kills`);
  }
  if (!options.skip.has('outage')) {
    log(`PostgreSQL stop/start under load: ${options.seconds} s, outages of ${options.outageMs} ms`);
    const outage = await databaseOutage({ seconds: options.seconds, outageMs: options.outageMs, log });
    for (const o of outage.outages)
      log(`  ${o.mode} stop: down ${o.downMs} ms, acks while down ${o.acksWhileDown}, recovery ${o.recoveryMs} ms`);
    log(
      `  acked ${outage.acked}, lost ${outage.lost}, duplicated ${outage.duplicated}, undecided ${outage.undecided}; ` +
        `5xx ${outage.serverErrors} (+${outage.unavailable} 503), peak RSS ${outage.peakRssMiB} MiB`,
    );
    check('outage', { ...outage });
    for (const o of outage.outages)
      if (o.acksWhileDown > 0) failures.push(`outage: ${o.acksWhileDown} 202s while down`);
  }
  if (!options.skip.has('fuzz')) {
    log(`hostile content: ${options.fuzzRounds} rounds over ingress and REST`);
    const fuzz = await hostileFuzz({ rounds: options.fuzzRounds });
    log(
      `  ${fuzz.requests} requests, 5xx ${fuzz.serverErrors}, answers ${JSON.stringify(fuzz.statuses)}, peak RSS ${fuzz.peakRssMiB} MiB`,
    );
    check('fuzz', { ...fuzz });
  }
  log(
    failures.length === 0 ? 'chaos: 0 lost, 0 duplicated, 0 undecided, 0 5xx' : `chaos FAILED: ${failures.join('; ')}`,
  );
  if (failures.length > 0) process.exitCode = 1;
}

function parse(args: string[]): Options {
  const options: Options = {
    deliveries: 3000,
    kills: 5,
    fuzzRounds: 20,
    outageMs: 10_000,
    seconds: 40,
    skip: new Set(),
  };
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1]];
    const number = () => {
      i++;
      const n = Number(value);
      if (value === undefined || value.trim() === '' || !Number.isInteger(n) || n < 0)
        throw new BenchUsage(`${flag} needs a whole number, not "${value ?? ''}"`);
      return n;
    };
    if (flag === '--deliveries') options.deliveries = number();
    else if (flag === '--kills') options.kills = number();
    else if (flag === '--fuzz-rounds') options.fuzzRounds = number();
    else if (flag === '--outage-ms') options.outageMs = number();
    else if (flag === '--seconds') options.seconds = number();
    else if (flag === '--skip' && SKIPPABLE.includes(value ?? '')) options.skip.add(args[++i]!);
    else if (flag === '--skip') throw new BenchUsage(`--skip takes ${SKIPPABLE.join('|')}, not "${value ?? ''}"`);
    else
      throw new BenchUsage(
        `unknown option ${flag} (--deliveries, --kills, --fuzz-rounds, --outage-ms, --seconds, --skip kills|outage|fuzz)`,
      );
  }
  return options;
}
