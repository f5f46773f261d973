import { materializerSuite } from './materializer.shared.js';
import { scheduleApiSuite } from './schedule-api.shared.js';

materializerSuite('pglite');
scheduleApiSuite('pglite');
