import type { DeliveryPolicy } from './delivery-policy.js';

/** EX-5: the claim body's `limits` (api.md); a limit the Trigger did not declare is left out, never null. */
export interface ClaimLimits {
  maxRuntimeSeconds?: number;
  budgetUnits?: number;
}

/** A request recorded before delivery policies existed declared no limits. */
export function claimLimits(delivery: DeliveryPolicy | undefined): ClaimLimits {
  const limits: ClaimLimits = {};
  if (delivery?.maxRuntimeSeconds != null) limits.maxRuntimeSeconds = delivery.maxRuntimeSeconds;
  if (delivery?.budgetUnits != null) limits.budgetUnits = delivery.budgetUnits;
  return limits;
}
