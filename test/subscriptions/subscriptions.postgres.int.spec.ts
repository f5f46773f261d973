import { subscriptionOrderSuite, subscriptionRestartSuite, subscriptionsSuite } from './subscriptions.shared.js';

subscriptionsSuite('postgres');
subscriptionOrderSuite('postgres');
subscriptionRestartSuite('postgres');
