import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SubscriptionRegistry } from './subscription-registry.js';

/** Read models, and the admission whose decisions `?wait=decision` answers with, catch up before traffic comes. */
const CATCHES_UP = /^(projection:|processor:admission$)/;

export type StartupState = { ready: true } | { ready: false; reason: string; waitingFor: string[] };

/**
 * OP-4: ready once this process's background tasks run (a first pass ended; a background thread is up) and the
 * read models it folds have reached the log's head as it was at start. Once reached it stays so: lag later is
 * reported by the other indicators, not by taking the instance out of rotation. A process that runs no background
 * work (REVEILLE_BACKGROUND=off) has nothing to wait for here.
 */
@Injectable()
export class StartupReadiness implements OnApplicationBootstrap {
  private head: number | null = null;
  private reached = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly registry: SubscriptionRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.head = await this.store.headPosition().catch(() => null);
  }

  async check(): Promise<StartupState> {
    if (this.reached) return { ready: true };
    const starting = this.registry.starting();
    if (starting.length > 0) return { ready: false, reason: 'background starting', waitingFor: starting };
    this.head ??= await this.store.headPosition();
    const behind: string[] = [];
    for (const name of this.catchingUp()) {
      const task = this.registry.find(name);
      if (task?.hasReached && !(await task.hasReached(this.head))) behind.push(name);
    }
    if (behind.length > 0)
      return { ready: false, reason: `read models catching up to position ${this.head}`, waitingFor: behind };
    this.reached = true;
    return { ready: true };
  }

  /** The tasks this process runs, a background thread's included, that must reach the head seen at start. */
  private catchingUp(): string[] {
    const prefix = /^[^/]+\//;
    return this.registry
      .names()
      .map((name) => name.replace(prefix, ''))
      .filter((name) => CATCHES_UP.test(name));
  }
}
