import { Injectable } from '@nestjs/common';
import { type IngressSource, SourceRegistry } from './source-registry.js';

const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/**
 * Source definitions and keys for at most a second, unknown ids included, so an unauthenticated
 * flood within the rate limit costs at most one lookup per source per second (WH-8). A retired key
 * may verify for up to a second on another process; admission re-checks it (key_revoked, AD-2).
 */
@Injectable()
export class SourceCache {
  private readonly entries = new Map<string, { at: number; source: Promise<IngressSource | null> }>();

  constructor(private readonly registry: SourceRegistry) {}

  get(sourceId: string): Promise<IngressSource | null> {
    const now = performance.now();
    const hit = this.entries.get(sourceId);
    if (hit && now - hit.at < TTL_MS) return hit.source;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const source = this.registry.resolve(sourceId);
    this.entries.set(sourceId, { at: now, source });
    source.catch(() => this.entries.delete(sourceId));
    return source;
  }

  has(sourceId: string): boolean {
    const hit = this.entries.get(sourceId);
    return hit !== undefined && performance.now() - hit.at < TTL_MS;
  }

  /** This process changed the source (new key, retired key): drop what it remembers. */
  forget(sourceId: string): void {
    this.entries.delete(sourceId);
  }
}
