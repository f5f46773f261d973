export * from './source-definition.js';
export * from './source.js';
