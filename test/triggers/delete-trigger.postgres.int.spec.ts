import { deleteTriggerSuite } from './delete-trigger.shared.js';

deleteTriggerSuite('postgres');
