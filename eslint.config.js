// Lint guards the house rules a reviewer should never have to: imports point one way (domain ←
// commands, projections ← adapters ← the composition root), no import cycles, a pure domain, ports
// that are types only, settings read only by the config module. `npm run lint` runs in CI and
// fails the build on a violation.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';

const root = ['./src/main.ts', './src/app.module.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.reveille/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/domain',
              from: ['./src/commands', './src/projections', './src/adapters', ...root],
              message: 'src/domain is the innermost layer: it imports nothing from the layers around it.',
            },
            {
              target: './src/commands',
              from: ['./src/projections', './src/adapters', ...root],
              message:
                'Commands depend on src/domain (and its ports) only; throw a domain error, never an HTTP problem.',
            },
            {
              target: './src/projections',
              from: ['./src/commands', './src/adapters', ...root],
              message: 'Projections depend on src/domain (and its ports) only.',
            },
            {
              target: './src/adapters',
              from: root,
              message:
                'Adapters never import the composition root: it hands them what they need (see adapters/cli/composition.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(@nestjs/|@eventstore/|@electric-sql/|pg$|ioredis|fastify|node:(fs|net|http|https|child_process|worker_threads)$|(fs|net|http|https)$)',
              message:
                'src/domain is pure: no framework, database or I/O imports (time and ids arrive on the command).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/ports/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Program > :not(ImportDeclaration, ExportNamedDeclaration, TSInterfaceDeclaration, TSTypeAliasDeclaration)',
          message: 'Ports are types only.',
        },
        {
          selector: 'ExportNamedDeclaration > :not(TSInterfaceDeclaration, TSTypeAliasDeclaration)',
          message: 'Ports are types only.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read settings from the config (src/adapters/config): every variable is validated there at startup.',
        },
      ],
    },
  },
  { files: ['src/adapters/config/**', 'src/**/*.spec.ts'], rules: { 'no-restricted-properties': 'off' } },
  prettier,
);
