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
