import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore, WrongExpectedRevision } from '../../adapters/eventstore/event-store.port.js';
import { SourceRegistry } from '../../adapters/ingress/source-registry.js';
import { type AdmissionFacts, budgetDecider, budgetWindowStart, countedExecution } from '../../domain/admission/index.js';
import { occurrenceDecider } from '../../domain/occurrence/occurrence.js';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { budgetStream } from '../../domain/shared/ids.js';
import { isRejection } from '../../domain/shared/result.js';
import { asDomainEvent, handleCommand, loadAggregate, toNewEvent } from '../shared/aggregate.js';
import { currentMission, currentTrigger } from '../shared/lookups.js';
import { AdmitOccurrenceCommand, type AdmissionResult } from './admit-occurrence.command.js';
import { DecisionNotifier } from './decision-notifier.js';
import { CommandRejected } from '../shared/rejected.js';

const SYSTEM = { actor: 'reveille:admission' };

/**
 * AD-1/AD-2: look up current Trigger, Mission and budget, decide once, and append the decision at the
 * occurrence stream's revision so racing admitters cannot both decide. An admission first counts
 * against the Mission's hourly budget stream (serializing admissions per Mission window); a crash
 * between the two appends is healed by the next attempt reusing the counted execution id.
 */
@CommandHandler(AdmitOccurrenceCommand)
export class AdmitOccurrenceHandler implements ICommandHandler<AdmitOccurrenceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SourceRegistry) private readonly sources: SourceRegistry,
    private readonly notifier: DecisionNotifier,
  ) {}

  async execute({ occurrenceStreamId }: AdmitOccurrenceCommand): Promise<AdmissionResult> {
    const loaded = await loadAggregate(this.store, occurrenceStreamId, occurrenceDecider);
    const state = loaded.state;
    if (state.status === 'absent') throw new Error(`no occurrence in ${occurrenceStreamId}`);
    if (state.status === 'decided') return { occurrenceId: state.occurrence.occurrenceId, decision: 'already_decided', executionId: state.executionId, position: loaded.position };
    const occurrence = state.occurrence;
    const now = (await this.store.now()).toISOString();
    const windowStart = budgetWindowStart(now);
    const budgetStreamId = budgetStream(occurrence.tenant, occurrence.missionId, windowStart);
    const budget = await loadAggregate(this.store, budgetStreamId, budgetDecider);
    const counted = countedExecution(budget.state, occurrence.occurrenceId);
    const facts: AdmissionFacts = {
      trigger: await currentTrigger(this.store, occurrence.tenant, occurrence.triggerId),
      mission: await currentMission(this.store, occurrence.tenant, occurrence.missionId),
      budget: { windowStart, consumed: budget.state.consumed, alreadyCountedThisOccurrence: counted !== null },
      // Execution lifecycle (claim/complete, EX-2) is not built yet: nothing is counted as running.
      activeExecutions: 0,
      // AD-2/WH-3: the key that authenticated the delivery must still be current at decision time.
      keyRevoked: occurrence.auth.state === 'verified' && occurrence.auth.sourceId && occurrence.auth.keyId ? await this.sources.isKeyRetired(occurrence.tenant, occurrence.auth.sourceId, occurrence.auth.keyId) : false,
      triggerRunning: false,
    };
    const executionId = counted ?? randomUUID();
    let decision = this.decide(state, occurrence.occurrenceId, executionId, now, facts);
    const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
    if (admitted && counted === null) {
      const limit = admitted.data.request.limits.maxExecutionsPerHour;
      try {
        await handleCommand(this.store, budgetStreamId, budgetDecider, { type: 'ConsumeBudget', tenant: occurrence.tenant, missionId: occurrence.missionId, windowStart, occurrenceId: occurrence.occurrenceId, executionId, limit, at: now }, metadata(occurrence.tenant, occurrence.occurrenceId));
      } catch (error) {
        if (!(error instanceof CommandRejected) || error.rejection.code !== 'budget_exhausted') throw error;
        // A racing admitter took the last unit: decide again with the budget as it now stands.
        decision = this.decide(state, occurrence.occurrenceId, executionId, now, { ...facts, budget: { windowStart, consumed: Number.MAX_SAFE_INTEGER, alreadyCountedThisOccurrence: false } });
      }
    }
    try {
      const appended = await this.store.append(occurrenceStreamId, decision.map((e) => toNewEvent(e, metadata(occurrence.tenant, occurrence.occurrenceId))), loaded.revision);
      this.notifier.decided(occurrence.occurrenceId);
      const event = decision[0]!;
      return { occurrenceId: occurrence.occurrenceId, decision: event.type === 'OccurrenceAdmitted' ? 'admitted' : 'blocked', executionId: event.type === 'OccurrenceAdmitted' ? executionId : null, position: appended.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevision)) throw error;
      // Another admitter decided first, or a conflicting delivery was recorded meanwhile: look again.
      return this.execute(new AdmitOccurrenceCommand(occurrenceStreamId));
    }
  }

  private decide(state: Parameters<typeof occurrenceDecider.decide>[1], occurrenceId: string, executionId: string, now: string, facts: AdmissionFacts): OccurrenceEvent[] {
    const events = occurrenceDecider.decide({ type: 'AdmitOccurrence', occurrenceId, executionId, now, facts }, state);
    if (isRejection(events)) throw new CommandRejected(events);
    return events.map((e) => asDomainEvent<OccurrenceEvent>({ type: e.type, data: e.data } as never));
  }
}

const metadata = (tenant: string, occurrenceId: string) => ({ tenant, ...SYSTEM, causationId: occurrenceId, correlationId: occurrenceId });
