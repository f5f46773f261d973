import { pollLifeSuite } from './poll-life.shared.js';

pollLifeSuite('postgres');
