import { formatInTimeZone } from 'date-fns-tz';
import { isKnownTimeZone } from '../schedule/zone.js';
import { filterRef, type PrefilterKind } from './prefilter.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

const minutes = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * AD-4: terminates with `outside_window` when the acceptance time, read on the wall clock of `timezone`, is not
 * within `from` (inclusive) to `until` (exclusive, `"24:00"` = midnight) on one of `days`. A window whose `until`
 * is before `from` runs overnight and belongs to the day it starts on.
 */
export const windowV1: PrefilterKind = {
  id: 'window',
  version: 1,
  validate(read, spec, at) {
    read.onlyKnown(spec, at, ['id', 'version', 'timezone', 'days', 'from', 'until']);
    const before = read.errors.length;
    if (typeof spec.timezone !== 'string' || !isKnownTimeZone(spec.timezone))
      read.fail(`${at}/timezone`, 'timezone must be an IANA time zone name, e.g. "Europe/Berlin"');
    const days = spec.days;
    if (
      !Array.isArray(days) ||
      days.length === 0 ||
      !days.every((d) => (WEEKDAYS as readonly unknown[]).includes(d)) ||
      new Set(days).size !== days.length
    )
      read.fail(`${at}/days`, `days must list distinct days of ${WEEKDAYS.map((d) => `"${d}"`).join(', ')}`);
    if (typeof spec.from !== 'string' || !CLOCK.test(spec.from)) read.fail(`${at}/from`, 'from must be "HH:MM"');
    if (typeof spec.until !== 'string' || !(CLOCK.test(spec.until) || spec.until === '24:00'))
      read.fail(`${at}/until`, 'until must be "HH:MM" or "24:00"');
    else if (spec.until === spec.from) read.fail(`${at}/until`, 'until must differ from from');
    return read.errors.length === before;
  },
  evaluate(spec, context) {
    const timezone = spec.timezone as string;
    const ref = { ...filterRef(spec), triggerRevision: context.triggerRevision, at: context.acceptedAt, timezone };
    let fields: string[];
    let local: string;
    try {
      const instant = new Date(context.acceptedAt);
      fields = formatInTimeZone(instant, timezone, 'i HH:mm').split(' ');
      local = formatInTimeZone(instant, timezone, "yyyy-MM-dd'T'HH:mm:ssxxx");
    } catch {
      return { outcome: 'inconclusive', evidence: { ...ref, problem: 'acceptance time cannot be read in the zone' } };
    }
    const day = Number(fields[0]);
    const clock = fields[1] ?? '';
    const days = spec.days as string[];
    const today = WEEKDAYS[day - 1]!;
    const yesterday = WEEKDAYS[(day + 5) % 7]!;
    const now = minutes(clock);
    const from = minutes(spec.from as string);
    const until = spec.until === '24:00' ? 24 * 60 : minutes(spec.until as string);
    const inside =
      from < until
        ? days.includes(today) && now >= from && now < until
        : (days.includes(today) && now >= from) || (days.includes(yesterday) && now < until);
    const evidence = { ...ref, local, day: today };
    return inside ? { outcome: 'pass', evidence } : { outcome: 'terminate', reason: 'outside_window', evidence };
  },
};
