/** The running tz data version is passed in by the caller: the domain never looks at the process (SC-7). */
export const ENGINE_VERSIONS = ['cron@1', 'interval@1'] as const;
export type ScheduleEngine = (typeof ENGINE_VERSIONS)[number];

export interface EngineMetadata {
  engine: ScheduleEngine;
  family: 'cron' | 'interval';
  version: number;
  /** Whether the zone (and so the tz data) decides which instants exist, not only how they render. */
  zoneDependentInstants: boolean;
  expressionSyntax: string;
}

const METADATA: Readonly<Record<ScheduleEngine, EngineMetadata>> = {
  'cron@1': {
    engine: 'cron@1',
    family: 'cron',
    version: 1,
    zoneDependentInstants: true,
    expressionSyntax: 'five fields: minute hour day-of-month month day-of-week (Vixie semantics)',
  },
  'interval@1': {
    engine: 'interval@1',
    family: 'interval',
    version: 1,
    zoneDependentInstants: false,
    expressionSyntax: 'ISO-8601 duration PnW or PnDTnHnMnS, at least PT1S, fired at start + k·duration',
  },
};

export function isScheduleEngine(value: unknown): value is ScheduleEngine {
  return typeof value === 'string' && (ENGINE_VERSIONS as readonly string[]).includes(value);
}

export function describeEngine(engine: string): EngineMetadata | null {
  return isScheduleEngine(engine) ? METADATA[engine] : null;
}

export interface TzdataStatus {
  pinned: string | null;
  running: string | null;
  /** SC-7: a difference must be visible to operators; an unknown side counts as drift. */
  drift: boolean;
}

export function compareTzdata(pinned: string | null, running: string | null): TzdataStatus {
  return { pinned, running, drift: pinned === null || running === null || pinned !== running };
}
