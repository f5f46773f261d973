import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Migration } from '../../projections/migration.js';
import type { ReveilleConfig } from '../config/config.js';
import type { Infrastructure } from '../eventstore/infrastructure.js';
import type { AppOptions } from '../http/http-app.js';

/** Handed down by the composition root, so nothing below the root imports the root. */
export interface Composition {
  createApp(config: ReveilleConfig, infra: Infrastructure, options?: AppOptions): Promise<NestFastifyApplication>;
  /** Async: the root loads the application's modules only for a command that opens a store. */
  migrations(): Promise<Migration[]>;
  /** `src/main.ts`, which runs the worker off the main thread. */
  workerEntry: URL;
}
