import { Global, Module } from '@nestjs/common';
import { SourcesController } from '../adapters/http/controllers/sources.controller.js';
import { IngressRoutes } from '../adapters/ingress/ingress-routes.js';
import { SourceRegistry } from '../adapters/ingress/source-registry.js';
import { TriggerBindings } from '../adapters/ingress/trigger-bindings.js';
import { SecretStore } from '../adapters/sources/secret-store.js';
import { AddSourceKeyHandler } from './add-source-key/add-source-key.handler.js';
import { RetireSourceKeyHandler } from './retire-source-key/retire-source-key.handler.js';
import { ReviseSourceHandler } from './revise-source/revise-source.handler.js';

/**
 * Sources and their keys, plus the lookups the ingress pipeline and admission need. Global so the
 * admission handler (TriggersModule) and the ingress module can inject SourceRegistry and
 * TriggerBindings without importing this module.
 */
@Global()
@Module({
  controllers: [SourcesController],
  providers: [SecretStore, IngressRoutes, SourceRegistry, TriggerBindings, ReviseSourceHandler, AddSourceKeyHandler, RetireSourceKeyHandler],
  exports: [SourceRegistry, TriggerBindings, IngressRoutes],
})
export class SourcesModule {}
