// ESM + ts-jest: run through `node --experimental-vm-modules` (see package.json "test").
const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
};

// Every feature suite (`*.shared.ts`) runs on PostgreSQL in `npm test`; its `*.pglite.int.spec.ts` twin runs the
// same cases on the embedded default. PGlite is PostgreSQL compiled to WebAssembly: the same SQL, two to four
// times slower; all twins together took 930 of the run's 2,080 suite-seconds, which put `npm test` past 15
// minutes on CI. So `npm test` runs the twins that exercise what is the embedded store's own (event store
// conformance, the manual and webhook paths, in-process wakeups, the claim-next long poll woken in process), and
// those that produce each AD-3 reason code end to end (guards, prefilters, causality; overlap_skip rides on the
// webhook path), plus every suite that opens both stores itself; `npm run test:embedded` runs every twin.
const EMBEDDED_TWINS_IN_NPM_TEST = [
  'eventstore/pglite.int.spec.ts',
  'manual/manual-path.pglite.int.spec.ts',
  'ingress/ingress.pglite.int.spec.ts',
  'wakeups/wakeups.in-process.pglite.int.spec.ts',
  'client/worker.pull.pglite.int.spec.ts',
  'guards/guards.pglite.int.spec.ts',
  'prefilters/prefilters.pglite.int.spec.ts',
  'causality/causality.pglite.int.spec.ts',
];
const everyTwin = process.env.REVEILLE_TEST_EMBEDDED === 'all';
const escape = (path) => path.replace(/[.]/g, '\\.');
const otherTwins = `/test/(?!(${EMBEDDED_TWINS_IN_NPM_TEST.map(escape).join('|')})$).*\\.pglite\\.int\\.spec\\.ts$`;

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{src,test}/**/*.unit.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.{int,e2e}.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...(everyTwin ? [] : [otherTwins])],
    },
  ],
  // PGlite boots a whole PostgreSQL in WebAssembly (several seconds) and suites race real writers; on a loaded
  // 2-core machine (load average 8–12) a PGlite harness's migrations alone took over 60 s in a beforeAll.
  testTimeout: 120000,
  // Jest's default on two cores is one worker, i.e. every suite in-band in one process, whose memory grows past
  // 3 GB over the run. Suites spend much of their time waiting on PostgreSQL, timers and child processes, so a third
  // worker fills the cores while two wait: on an idle machine with a cold transform cache three workers ran the whole
  // suite in 8.5 min (14.6 CPU-minutes). Suites are isolated (a schema or data directory each, ports from the OS),
  // so several at once is safe; each worker holds about 1 GB at most.
  maxWorkers: 3,
  // Longest suites first even with a cold cache (CI's): see test/support/test-sequencer.js.
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
};
