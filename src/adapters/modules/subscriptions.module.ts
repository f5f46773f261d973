import { Module } from '@nestjs/common';
import { SubscriptionsController } from '../http/controllers/subscriptions.controller.js';
import { RegisterSubscriptionHandler } from '../../commands/register-subscription/register-subscription.handler.js';
import { SubscriptionTimersService } from '../subscription-timers/subscription-timers.service.js';

/** SU-1: wait-for subscriptions of claimed executions, and the timers that pass their deadlines. */
@Module({
  controllers: [SubscriptionsController],
  providers: [RegisterSubscriptionHandler, SubscriptionTimersService],
})
export class SubscriptionsModule {}
