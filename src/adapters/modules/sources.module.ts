import { Global, Module } from '@nestjs/common';
import { SourcesController } from '../http/controllers/sources.controller.js';
import { IngressRoutes } from '../ingress/ingress-routes.js';
import { SourceRegistry } from '../ingress/source-registry.js';
import { TriggerBindings } from '../ingress/trigger-bindings.js';
import { SecretStore } from '../sources/secret-store.js';
import { INGRESS_ROUTES, SOURCE_SECRETS } from '../../commands/shared/tokens.js';
import { AddSourceKeyHandler } from '../../commands/add-source-key/add-source-key.handler.js';
import { RetireSourceKeyHandler } from '../../commands/retire-source-key/retire-source-key.handler.js';
import { ReviseSourceHandler } from '../../commands/revise-source/revise-source.handler.js';

/** Global, so admission and ingress inject SourceRegistry and TriggerBindings without importing this module. */
@Global()
@Module({
  controllers: [SourcesController],
  providers: [
    SecretStore,
    IngressRoutes,
    { provide: SOURCE_SECRETS, useExisting: SecretStore },
    { provide: INGRESS_ROUTES, useExisting: IngressRoutes },
    SourceRegistry,
    TriggerBindings,
    ReviseSourceHandler,
    AddSourceKeyHandler,
    RetireSourceKeyHandler,
  ],
  exports: [SourceRegistry, TriggerBindings, IngressRoutes],
})
export class SourcesModule {}
