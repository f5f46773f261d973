import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import type { LogLevel } from '../../config/http.section.js';

const ENABLED: Record<LogLevel, NestLogLevel[]> = {
  debug: ['debug', 'log', 'warn', 'error', 'fatal'],
  info: ['log', 'warn', 'error', 'fatal'],
  warn: ['warn', 'error', 'fatal'],
  error: ['error', 'fatal'],
  silent: [],
};

/** Nest's own start-up chatter: one line per module and route (≈ 50 lines) says nothing an operator acts on. */
const WIRING_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** One JSON object per line on stderr (OP-4), at REVEILLE_LOG_LEVEL; Nest's wiring lines only at debug. */
export class ServiceLogger extends ConsoleLogger {
  constructor(level: LogLevel) {
    super({ json: true, logLevels: ENABLED[level] });
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (typeof context === 'string' && WIRING_CONTEXTS.has(context)) return super.debug(message, ...rest);
    super.log(message, ...rest);
  }
}
