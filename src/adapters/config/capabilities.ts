import { CAPABILITIES } from '../../domain/trigger/trigger-authority.js';

/** CP-1: a capability is claimed only once every rule behind it is implemented, never before. */
export const CLAIMED_CAPABILITIES: readonly string[] = [
  CAPABILITIES.manual,
  CAPABILITIES.webhook,
  CAPABILITIES.schedule,
];
