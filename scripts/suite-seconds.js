// Refreshes test/support/suite-seconds.json, the suite durations jest's scheduler falls back on when its cache has
// none (test/support/test-sequencer.js): `npm test -- --json --outputFile=/tmp/run.json`, then
// `node scripts/suite-seconds.js /tmp/run.json`. Whole seconds; the order matters, not the exact figures.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [report] = process.argv.slice(2);
if (!report) {
  process.stderr.write('usage: node scripts/suite-seconds.js JEST_JSON_REPORT\n');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const table = join(root, 'test', 'support', 'suite-seconds.json');
const before = JSON.parse(readFileSync(table, 'utf8'));
// A suite that failed on a timeout is reported without its times: it keeps the seconds it had.
const seconds = Object.fromEntries(
  testResults
    .map((suite) => {
      const path = relative(root, suite.name);
      const measured = Math.round((suite.endTime - suite.startTime) / 1000);
      return [path, suite.endTime > suite.startTime ? Math.max(1, measured) : (before[path] ?? 1)];
    })
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(table, `${JSON.stringify(seconds, null, 2)}\n`);
process.stdout.write(`${Object.keys(seconds).length} suites\n`);
