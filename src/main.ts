import 'reflect-metadata';
import { isMainThread } from 'node:worker_threads';
import { runCli } from './adapters/cli/main.js';
import type { Composition } from './adapters/cli/composition.js';

// The application's modules load on first use, so `token`, `apply`, `why` and `--help` start in a blink.
const root = () => import('./app.module.js');
// The process entry is also the background thread's: the thread builds the same application.
const composition: Composition = {
  createApp: async (...args) => (await root()).createApp(...args),
  migrations: async () => (await import('./adapters/eventstore/all-migrations.js')).allMigrations(),
  workerEntry: new URL(import.meta.url),
};
if (isMainThread) await runCli(process.argv.slice(2), composition);
else await (await import('./adapters/background/background-worker.js')).runBackgroundWorker(composition);
