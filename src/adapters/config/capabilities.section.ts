import { IMPLEMENTED_CAPABILITIES } from './capabilities.js';
import type { Readings, Section } from './readings.js';
import { text } from './variable.js';

const listed = (raw: string): string[] =>
  raw
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');

/**
 * CP-1: an operator may withhold implemented capabilities (say polling, where the deployment must not call out),
 * so a Trigger needing one is refused 422 as if it were not built. An unknown id stops the start: a typo must not
 * leave a capability claimed that the operator meant to withhold.
 */
export const REVEILLE_WITHHELD_CAPABILITIES = text('REVEILLE_WITHHELD_CAPABILITIES', {
  accepts: 'a comma-separated list of capability ids (those `GET /v1/capabilities` lists)',
  unset: 'none: every implemented capability is claimed',
  fallback: null,
  valid: (raw) => listed(raw).length > 0 && listed(raw).every((id) => IMPLEMENTED_CAPABILITIES.includes(id)),
});

export interface CapabilitySettings {
  /** What `GET /v1/capabilities` lists and Trigger revisions may use: the implemented ones less the withheld. */
  claimedCapabilities: readonly string[];
}

export const capabilitiesSection: Section<CapabilitySettings> = {
  variables: [REVEILLE_WITHHELD_CAPABILITIES],
  settings: (readings: Readings) => {
    const withheld = listed(readings.get(REVEILLE_WITHHELD_CAPABILITIES) ?? '');
    return { claimedCapabilities: IMPLEMENTED_CAPABILITIES.filter((id) => !withheld.includes(id)) };
  },
};
