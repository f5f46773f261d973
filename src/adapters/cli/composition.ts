import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Migration } from '../../projections/migration.js';
import type { ReveilleConfig } from '../config/config.js';
import type { Infrastructure } from '../eventstore/infrastructure.js';
import type { AppOptions } from '../http/http-app.js';

/**
 * What the composition root (`src/app.module.ts`) hands to the driving side: the CLI and the
 * background thread build the application through it, so nothing below the root imports the root.
 */
export interface Composition {
  createApp(config: ReveilleConfig, infra: Infrastructure, options?: AppOptions): Promise<NestFastifyApplication>;
  migrations(): Migration[];
  /** The module a background worker thread starts from (`src/main.ts`, which runs the worker off the main thread). */
  workerEntry: URL;
}
