import 'reflect-metadata';
import { isMainThread } from 'node:worker_threads';
import { runBackgroundWorker } from './adapters/background/background-worker.js';
import { runCli } from './adapters/cli/main.js';
import type { Composition } from './adapters/cli/composition.js';
import { allMigrations, createApp } from './app.module.js';

// The process entry is also the background thread's: the thread builds the same application.
const composition: Composition = { createApp, migrations: allMigrations, workerEntry: new URL(import.meta.url) };
if (isMainThread) await runCli(process.argv.slice(2), composition);
else await runBackgroundWorker(composition);
