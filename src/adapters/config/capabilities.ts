import { CAPABILITIES } from '../../domain/trigger/trigger-authority.js';

/**
 * What this deployment claims (CP-1). A capability is claimed only when every rule behind it is
 * implemented here; the others are added as their issues land, never before.
 */
export const CLAIMED_CAPABILITIES: readonly string[] = [
  CAPABILITIES.manual,
  CAPABILITIES.webhook,
  CAPABILITIES.schedule,
];
