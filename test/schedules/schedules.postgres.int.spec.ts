import { materializerSuite } from './materializer.shared.js';
import { scheduleApiSuite } from './schedule-api.shared.js';

materializerSuite('postgres');
scheduleApiSuite('postgres');
