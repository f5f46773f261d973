import { sourceViewSuite } from './source-view.shared.js';

sourceViewSuite('postgres');
