export * from './coalesce-rule.js';
export * from './coalesce-target.js';
export * from './coalesce-group.js';
