import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { TrustedClock } from '../../adapters/clock/trusted-clock.js';
import { EVENT_STORE, type EventStore, type RecordedEvent, type StreamAppend, WrongExpectedRevision } from '../../adapters/eventstore/event-store.port.js';
import { type AdmissionFacts, budgetDecider, budgetWindowStart, countedExecution } from '../../domain/admission/index.js';
import { missionDecider } from '../../domain/mission/mission.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { budgetStream, missionStream, sourceStream, triggerStream } from '../../domain/shared/ids.js';
import { isRejection } from '../../domain/shared/result.js';
import { isKeyRetired, sourceDecider } from '../../domain/source/source.js';
import { triggerDecider } from '../../domain/trigger/trigger.js';
import { appendAll, asDomainEvent, type Loaded, loadAggregate, loadAggregates, toNewEvent } from '../shared/aggregate.js';
import { CommandRejected } from '../shared/rejected.js';
import { AdmitOccurrenceCommand, type AdmissionResult } from './admit-occurrence.command.js';
import { DecisionNotifier } from './decision-notifier.js';

const SYSTEM = { actor: 'reveille:admission' };
const MAX_ATTEMPTS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Observed = Extract<OccurrenceState, { status: 'observed' }>;

/**
 * AD-1/AD-2: look up current Trigger, Mission, budget and key, decide once, and append the decision at
 * the occurrence stream's revision so racing admitters cannot both decide. An admission also counts
 * against the Mission's hourly budget stream (serializing admissions per Mission window); both go in
 * one all-or-nothing append where the store has one, otherwise budget first, and a crash between the
 * two is healed by the next attempt reusing the counted execution id.
 */
@CommandHandler(AdmitOccurrenceCommand)
export class AdmitOccurrenceHandler implements ICommandHandler<AdmitOccurrenceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
    private readonly notifier: DecisionNotifier,
  ) {}

  async execute({ occurrenceStreamId, observed }: AdmitOccurrenceCommand): Promise<AdmissionResult> {
    for (let attempt = 1; ; attempt++) {
      // The processor hands over the observation it read; it is the whole stream unless a conflict was recorded since.
      const loaded = attempt === 1 && observed ? fromObservation(observed) : await loadAggregate(this.store, occurrenceStreamId, occurrenceDecider);
      const state = loaded.state;
      if (state.status === 'absent') throw new Error(`no occurrence in ${occurrenceStreamId}`);
      if (state.status === 'decided') return { occurrenceId: state.occurrence.occurrenceId, decision: 'already_decided', executionId: state.executionId, position: loaded.position };
      try {
        return await this.admit(occurrenceStreamId, state, loaded);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= MAX_ATTEMPTS) throw error;
        // Another admitter decided first, a conflicting delivery was recorded, or the Mission's budget moved: look again.
        await sleep(Math.random() * Math.min(2 ** attempt, 50));
      }
    }
  }

  private async admit(occurrenceStreamId: string, state: Observed, loaded: Loaded<OccurrenceState>): Promise<AdmissionResult> {
    const { occurrence } = state;
    const { tenant, missionId, occurrenceId, auth } = occurrence;
    const now = (await this.clock.now()).toISOString();
    const windowStart = budgetWindowStart(now);
    const budgetStreamId = budgetStream(tenant, missionId, windowStart);
    const checksKey = auth.state === 'verified' && auth.sourceId && auth.keyId;
    const [budget, trigger, mission, source] = await loadAggregates(this.store, [
      { streamId: budgetStreamId, decider: budgetDecider },
      { streamId: triggerStream(tenant, occurrence.triggerId), decider: triggerDecider },
      { streamId: missionStream(tenant, missionId), decider: missionDecider },
      ...(checksKey ? [{ streamId: sourceStream(tenant, auth.sourceId!), decider: sourceDecider }] : []),
    ] as const);
    const counted = countedExecution(budget.state, occurrenceId);
    const facts: AdmissionFacts = {
      trigger: trigger.state,
      mission: mission.state,
      budget: { windowStart, consumed: budget.state.consumed, alreadyCountedThisOccurrence: counted !== null },
      // Execution lifecycle (claim/complete, EX-2) is not built yet: nothing is counted as running.
      activeExecutions: 0,
      // AD-2/WH-3: the key that authenticated the delivery must still be current at decision time.
      keyRevoked: checksKey ? isKeyRetired(source!.state, auth.keyId!) : false,
      triggerRunning: false,
    };
    const executionId = counted ?? randomUUID();
    const meta = metadata(tenant, occurrenceId);
    let decision = this.decide(state, occurrenceId, executionId, now, facts);
    const appends: StreamAppend[] = [];
    const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
    if (admitted && counted === null) {
      const limit = admitted.data.request.limits.maxExecutionsPerHour;
      const consumed = budgetDecider.decide({ type: 'ConsumeBudget', tenant, missionId, windowStart, occurrenceId, executionId, limit, at: now }, budget.state);
      if (isRejection(consumed)) {
        if (consumed.code !== 'budget_exhausted') throw new CommandRejected(consumed);
        decision = this.decide(state, occurrenceId, executionId, now, { ...facts, budget: { windowStart, consumed: Number.MAX_SAFE_INTEGER, alreadyCountedThisOccurrence: false } });
      } else {
        appends.push({ streamId: budgetStreamId, events: consumed.map((e) => toNewEvent(e, meta)), expected: budget.revision < 0 ? 'no_stream' : budget.revision });
      }
    }
    appends.push({ streamId: occurrenceStreamId, events: decision.map((e) => toNewEvent(e, meta)), expected: loaded.revision });
    const positions = await appendAll(this.store, appends);
    this.notifier.decided(occurrenceId);
    const event = decision[0]!;
    const isAdmitted = event.type === 'OccurrenceAdmitted';
    return { occurrenceId, decision: isAdmitted ? 'admitted' : 'blocked', executionId: isAdmitted ? executionId : null, position: positions[positions.length - 1]! };
  }

  private decide(state: OccurrenceState, occurrenceId: string, executionId: string, now: string, facts: AdmissionFacts): OccurrenceEvent[] {
    const events = occurrenceDecider.decide({ type: 'AdmitOccurrence', occurrenceId, executionId, now, facts }, state);
    if (isRejection(events)) throw new CommandRejected(events);
    return events.map((e) => asDomainEvent<OccurrenceEvent>({ type: e.type, data: e.data } as never));
  }
}

function fromObservation(observed: RecordedEvent): Loaded<OccurrenceState> {
  return { state: occurrenceDecider.evolve(occurrenceDecider.initialState, asDomainEvent<OccurrenceEvent>(observed)), revision: observed.revision, position: observed.position };
}

const metadata = (tenant: string, occurrenceId: string) => ({ tenant, ...SYSTEM, causationId: occurrenceId, correlationId: occurrenceId });
