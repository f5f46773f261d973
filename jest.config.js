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
};
