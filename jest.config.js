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

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{src,test}/**/*.unit.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.{int,e2e}.spec.ts'],
    },
  ],
  // PGlite boots a whole PostgreSQL in WebAssembly (several seconds) and suites race real writers.
  testTimeout: 60000,
  // Jest's default on two cores is one worker, i.e. every suite in-band in one process, whose memory grows past
  // 3 GB over the run: measured here, the whole suite took 10.6 min with two workers (suites wait on PostgreSQL,
  // timers and child processes half the time) where one was on course for well over 15. Suites are isolated
  // (a schema or data directory each, ports from the OS), so two at once is safe.
  maxWorkers: 2,
};
