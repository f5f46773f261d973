export * from './guard-clause.js';
export * from './evaluate-guard.js';
