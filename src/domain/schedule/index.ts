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
  instantTimes,
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
export * from './schedule-events.js';
export * from './activation.js';
export * from './ended-activations.js';
export { applyMissedPolicy, type MissedOutcome, type MissedRun } from './missed-policy.js';
export * from './materialization.js';
export { isRoutine, MAX_ROUTINE_INSTANTS, routineLimitFor } from './routine.js';
