import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import type { Subscription } from '../../projections/runner/subscription.js';

/** Anything that runs in the background with the process: subscriptions, the schedule materializer. */
export type BackgroundTask = Pick<Subscription, 'name' | 'error' | 'start' | 'stop'> & {
  /** The tasks it runs elsewhere (a background thread's), named under it. */
  readonly remoteTasks?: readonly string[];
};

/** Every background subscription of this process (projections, processors), started and stopped with it. */
@Injectable()
export class SubscriptionRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly subscriptions: BackgroundTask[] = [];
  private readonly started = new Set<BackgroundTask>();
  private autostart = true;

  constructor(@Inject(CONFIG) private readonly config: Pick<ReveilleConfig, 'backgroundOnly'>) {}

  register(subscription: BackgroundTask): void {
    this.subscriptions.push(subscription);
  }

  /** Starts a task registered after the application's bootstrap (the background thread). */
  start(task: BackgroundTask): void {
    if (!this.subscriptions.includes(task)) this.register(task);
    this.started.add(task);
    task.start();
  }

  /** Tests drive subscriptions by hand with catchUp(). */
  disableAutostart(): void {
    this.autostart = false;
  }

  registered(): string[] {
    return this.subscriptions.map((s) => s.name);
  }

  /** What runs here (or, for a background thread, there): registered tasks that were never started are not listed. */
  names(): string[] {
    return [...this.started].flatMap((s) =>
      s.remoteTasks ? s.remoteTasks.map((name) => `${s.name}/${name}`) : [s.name],
    );
  }

  failing(): Array<{ name: string; error: string }> {
    return this.subscriptions
      .filter((s) => s.error)
      .map((s) => ({ name: s.name, error: String((s.error as Error).message ?? s.error) }));
  }

  /**
   * REVEILLE_BACKGROUND_ONLY (comma-separated names, e.g. `processor:admission`) runs only those here,
   * so roles can be split across processes; unset runs every task.
   */
  onApplicationBootstrap(): void {
    if (!this.autostart) return;
    const only = this.config.backgroundOnly;
    this.subscriptions.filter((s) => !only || only.includes(s.name)).forEach((s) => this.start(s));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.stop()));
  }
}
