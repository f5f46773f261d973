import { definition } from '../occurrence/occurrence.fixtures.js';
import type { TriggerDefinition } from '../trigger/trigger-definition.js';
import type { TriggerEvent } from '../trigger/trigger.js';
import { minutely } from './materialization.fixtures.js';

/** Shared by the activation specs: Trigger t-1's revisions as its stream holds them. */
export const schedule = (over: Partial<TriggerDefinition> = {}): TriggerDefinition =>
  definition({ type: 'schedule', source: null, schedule: minutely(), ...over });

export function revised(revision: number, at: string, def: TriggerDefinition): TriggerEvent {
  return {
    type: 'TriggerRevised',
    data: {
      tenant: 'acme',
      triggerId: 't-1',
      revision,
      definition: def,
      dedupeEpoch: 1,
      reason: '',
      actor: 'a',
      at,
      pins: { tzdataVersion: '2025b' },
    },
  };
}
