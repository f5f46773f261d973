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
const seconds = Object.fromEntries(
  testResults
    .map((suite) => [relative(root, suite.name), Math.max(1, Math.round((suite.endTime - suite.startTime) / 1000))])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(root, 'test', 'support', 'suite-seconds.json'), `${JSON.stringify(seconds, null, 2)}\n`);
process.stdout.write(`${Object.keys(seconds).length} suites\n`);
