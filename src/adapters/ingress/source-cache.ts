import { Injectable } from '@nestjs/common';
import { ExpiringCache } from './expiring-cache.js';
import { type IngressSource, SourceRegistry } from './source-registry.js';

const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/**
 * Source definitions and keys for at most a second, unknown ids included, so an unauthenticated
 * flood within the rate limit costs at most one lookup per source per second (WH-8). A retired key
 * may verify for up to a second on another process (this one forgets at once, DefinitionFreshness); admission
 * re-checks it (key_revoked, AD-2).
 */
@Injectable()
export class SourceCache {
  private readonly cache = new ExpiringCache<IngressSource | null>(TTL_MS, MAX_ENTRIES);

  constructor(private readonly registry: SourceRegistry) {}

  get(sourceId: string): Promise<IngressSource | null> {
    return this.cache.get(sourceId, () => this.registry.resolve(sourceId));
  }

  has(sourceId: string): boolean {
    return this.cache.has(sourceId);
  }

  /** This process changed a source (definition, new key, retired key): the next delivery reads it afresh (WH-3). */
  forgetAll(): void {
    this.cache.clear();
  }
}
