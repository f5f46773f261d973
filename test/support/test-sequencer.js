// Jest starts the longest suites first only when its cache holds their durations from an earlier run. CI always
// starts cold, and then jest orders by file size: the three-line `*.postgres|pglite.int.spec.ts` twins of the
// biggest shared suites came last, and the run ended with two or three of them alone on the cores. Without a
// duration of jest's own, a suite's seconds from suite-seconds.json stand in (measured; scripts/suite-seconds.js
// refreshes them), and a suite not listed there counts as a middling one.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Sequencer from '@jest/test-sequencer';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEASURED = JSON.parse(readFileSync(join(ROOT, 'test', 'support', 'suite-seconds.json'), 'utf8'));
const UNLISTED_SECONDS = 10;

export default class LongestFirst extends Sequencer {
  sort(tests) {
    super.sort(tests); // sets each test's duration from jest's cache where it has one
    const seconds = (test) =>
      test.duration != null ? test.duration / 1000 : (MEASURED[relative(ROOT, test.path)] ?? UNLISTED_SECONDS);
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return seconds(b) - seconds(a);
    });
  }
}
