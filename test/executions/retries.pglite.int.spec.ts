import { retriesSuite, timersSurviveRestartSuite } from './retries.shared.js';

retriesSuite('pglite');
timersSurviveRestartSuite('pglite');
