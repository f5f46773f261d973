import type { EventMetadata, NewEvent, StreamAppend } from '../../domain/ports/event-store.js';
import { NO_EVIDENCE, observedOccurrence } from '../../domain/occurrence/observed-occurrence.js';
import { scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import type { OccurrenceObserved } from '../../domain/occurrence/occurrence-events.js';
import { firedInstants } from '../../domain/schedule/materialization.js';
import type { ScheduleBinding, ScheduleDecision } from '../../domain/schedule/schedule-decision.js';
import { occurrenceStream, scheduleStream } from '../../domain/shared/ids.js';
import { toNewEvent } from '../shared/aggregate.js';

export const SCHEDULER_ACTOR = 'reveille:scheduler';

/**
 * SC-3: Trigger + schedule epoch + UTC instant, so every scheduler and restart names the same stream. No observe
 * step: an instant is always the first delivery of its identity, and the append at 'no_stream' decides that.
 */
export function scheduleOccurrence(binding: ScheduleBinding, instant: string, observedAt: string): OccurrenceObserved {
  const dedupeIdentity = scheduleIdentity(binding.tenant, { triggerId: binding.triggerId }, binding.epoch, instant);
  const data = observedOccurrence({
    kind: 'schedule',
    trigger: binding,
    dedupeIdentity,
    evidence: NO_EVIDENCE,
    observedAt,
  });
  return { type: 'OccurrenceObserved', data };
}

/** 'no_stream' per instant, so racing schedulers converge on one Occurrence each. */
export function appendsOf(decision: ScheduleDecision): { occurrences: StreamAppend[]; schedule: StreamAppend } {
  const { binding, events, expectedRevision, now } = decision;
  const base: EventMetadata = decision.metadata ?? {
    tenant: binding.tenant,
    actor: SCHEDULER_ACTOR,
    correlationId: `schedule:${binding.triggerId}:${now}`,
  };
  const occurrences = firedInstants(events).map((instant): StreamAppend => {
    const observed = scheduleOccurrence(binding, instant, now);
    const metadata = { ...base, causationId: `schedule:${binding.triggerId}:${instant}` };
    return {
      streamId: occurrenceStream(observed.data.dedupeHash),
      events: [toNewEvent(observed, metadata)],
      expected: 'no_stream',
    };
  });
  const schedule: StreamAppend = {
    streamId: scheduleStream(binding.tenant, binding.triggerId),
    events: events.map((e): NewEvent => toNewEvent(e, base)),
    expected: expectedRevision < 0 ? 'no_stream' : expectedRevision,
  };
  return { occurrences, schedule };
}
