import type { Type } from '@nestjs/common';

/** Feature modules (one per use case family); each registers its controllers, handlers and projections. */
export const featureModules: Type[] = [];
