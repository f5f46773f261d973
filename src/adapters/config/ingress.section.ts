import type { Readings, Section } from './readings.js';
import { integer } from './variable.js';

export const REVEILLE_INGRESS_RATE = integer('REVEILLE_INGRESS_RATE', { min: 1 }, 2_000);
export const REVEILLE_INGRESS_BURST = integer('REVEILLE_INGRESS_BURST', { min: 1 }, 4_000);
export const REVEILLE_MAX_OUTSTANDING_PER_SOURCE = integer('REVEILLE_MAX_OUTSTANDING_PER_SOURCE', { min: 1 }, 10_000);
export const REVEILLE_MAX_OUTSTANDING = integer('REVEILLE_MAX_OUTSTANDING', { min: 1 }, 100_000);

export interface IngressSettings {
  /** The whole process, before it sheds load with 429. */
  ingressRate: { perSecond: number; burst: number };
  /** WH-8: undecided Occurrences before ingress answers 429. */
  maxOutstanding: { perSource: number; global: number };
}

export const ingressSection: Section<IngressSettings> = {
  variables: [
    REVEILLE_INGRESS_RATE,
    REVEILLE_INGRESS_BURST,
    REVEILLE_MAX_OUTSTANDING_PER_SOURCE,
    REVEILLE_MAX_OUTSTANDING,
  ],
  settings: (readings: Readings) => ({
    ingressRate: { perSecond: readings.get(REVEILLE_INGRESS_RATE), burst: readings.get(REVEILLE_INGRESS_BURST) },
    maxOutstanding: {
      perSource: readings.get(REVEILLE_MAX_OUTSTANDING_PER_SOURCE),
      global: readings.get(REVEILLE_MAX_OUTSTANDING),
    },
  }),
};
