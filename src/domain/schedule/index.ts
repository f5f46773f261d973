export {
  validateSchedule,
  DEFAULT_DST,
  DEFAULT_GRACE_SECONDS,
  MAX_CATCH_UP_BOUND,
  type ScheduleDefinition,
  type NormalizedScheduleDefinition,
  type ScheduleValidation,
  type ScheduleValidationError,
  type DstPolicy,
  type MissedSettings,
  type NonexistentPolicy,
  type AmbiguousPolicy,
  type MissedPolicy,
  type MissedOverflow,
} from './schedule-definition.js';
export {
  computeInstants,
  DEFAULT_COUNT,
  MAX_INSTANTS,
  type ScheduleInstant,
  type InstantNote,
  type InstantOptions,
} from './instants.js';
export { parseCron, compileCron, type CronExpression, type CronField, type CronParseResult } from './cron.js';
export { cronDayMatches, nextCronWall } from './cron-search.js';
export { parseIsoDuration, compileInterval, MIN_INTERVAL_MS, type DurationParseResult } from './interval.js';
export { parseRfc3339, toUtcIso } from './rfc3339.js';
export { isKnownTimeZone, offsetAt, resolveLocal, renderLocal, type LocalResolution } from './zone.js';
export {
  ENGINE_VERSIONS,
  describeEngine,
  isScheduleEngine,
  compareTzdata,
  type ScheduleEngine,
  type EngineMetadata,
  type TzdataStatus,
} from './tzdata.js';
