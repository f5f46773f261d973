import { retriesSuite, timersSurviveRestartSuite } from './retries.shared.js';

retriesSuite('postgres');
timersSurviveRestartSuite('postgres');
