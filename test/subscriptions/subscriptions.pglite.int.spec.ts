import { subscriptionOrderSuite, subscriptionRestartSuite, subscriptionsSuite } from './subscriptions.shared.js';

subscriptionsSuite('pglite');
subscriptionOrderSuite('pglite');
subscriptionRestartSuite('pglite');
