export * from './trigger-blocks.js';
export * from './trigger-definition.js';
export * from './trigger-authority.js';
export * from './trigger.js';
