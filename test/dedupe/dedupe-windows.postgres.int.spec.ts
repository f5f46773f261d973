import { dedupeWindowsSuite } from './dedupe-windows.shared.js';

dedupeWindowsSuite('postgres');
