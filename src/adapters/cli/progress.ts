import cliProgress from 'cli-progress';

/** Plain periodic lines when stderr is not a terminal (CI logs). */
/** `every`: how many units between plain lines (a definition is an HTTP round trip, an event is not). */
export function progress(
  label: string,
  total: number,
  unit = 'events',
  every = 1000,
): { update(done: number): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} ${unit}`, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0);
    return { update: (done) => bar.update(Math.min(done, total)), stop: () => bar.stop() };
  }
  let last = 0;
  return {
    update(done) {
      if (done - last >= every || done === total) {
        last = done;
        process.stderr.write(`${label}: ${done}/${total} ${unit}\n`);
      }
    },
    stop: () => process.stderr.write(`${label}: done\n`),
  };
}

/** Several bars at once (read models rebuilt at once): one line each on a terminal, plain lines otherwise. */
export function progressGroup(unit = 'events'): {
  bar(label: string, total: number): { update(done: number): void; stop(): void };
  stop(): void;
} {
  if (!process.stderr.isTTY) return { bar: (label, total) => progress(label, total, unit), stop: () => undefined };
  const multi = new cliProgress.MultiBar(
    { format: `{label} [{bar}] {value}/{total} ${unit}`, stream: process.stderr, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  return {
    bar(label, total) {
      const bar = multi.create(Math.max(total, 1), 0, { label });
      return { update: (done) => bar.update(Math.min(done, total), { label }), stop: () => bar.stop() };
    },
    stop: () => multi.stop(),
  };
}
