import { claimLimits } from './claim-limits.js';
import { DEFAULT_DELIVERY_POLICY } from './delivery-policy.js';

describe('EX-5 the claim body limits', () => {
  it('given both limits declared, then both reach the consumer', () =>
    expect(claimLimits({ ...DEFAULT_DELIVERY_POLICY, maxRuntimeSeconds: 90, budgetUnits: 0 })).toEqual({
      maxRuntimeSeconds: 90,
      budgetUnits: 0,
    }));
  it('given one limit declared, then the other is left out rather than null', () => {
    expect(claimLimits({ ...DEFAULT_DELIVERY_POLICY, maxRuntimeSeconds: 90 })).toStrictEqual({ maxRuntimeSeconds: 90 });
    expect(claimLimits({ ...DEFAULT_DELIVERY_POLICY, budgetUnits: 3 })).toStrictEqual({ budgetUnits: 3 });
  });
  it('given the defaults or a request recorded before delivery policies, then no limits', () => {
    expect(claimLimits(DEFAULT_DELIVERY_POLICY)).toStrictEqual({});
    expect(claimLimits(undefined)).toStrictEqual({});
  });
});
