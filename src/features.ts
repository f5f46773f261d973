import type { Type } from '@nestjs/common';
import { MissionsModule } from './commands/missions.module.js';
import { TriggersModule } from './commands/triggers.module.js';
import { SourcesModule } from './commands/sources.module.js';
import { OperatorModule } from './projections/operator.module.js';
import { SchedulesModule } from './commands/schedules.module.js';
import { IngressModule } from './adapters/ingress/ingress.module.js';
import { ExecutionsModule } from './commands/executions.module.js';

/** Feature modules (one per use case family); each registers its controllers, handlers and projections. */
export const featureModules: Type[] = [MissionsModule, TriggersModule, OperatorModule, SourcesModule, IngressModule, SchedulesModule, ExecutionsModule];
