export * from './prefilter.js';
export * from './baseline.js';
export * from './unchanged.js';
export * from './relevant.js';
export * from './window.js';
export * from './registry.js';
