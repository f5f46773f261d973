export * from './reasons.js';
export * from './effective-authority.js';
export * from './admission-policy.js';
export * from './budget.js';
export * from './concurrency.js';
export * from './slot-stripes.js';
export * from './admit-in-order.js';
export * from './overlap.js';
