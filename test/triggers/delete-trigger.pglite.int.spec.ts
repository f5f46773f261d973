import { deleteTriggerSuite } from './delete-trigger.shared.js';

deleteTriggerSuite('pglite');
