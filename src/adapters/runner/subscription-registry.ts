import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import type { Subscription } from '../../projections/runner/subscription.js';

export type BackgroundTask = Pick<Subscription, 'name' | 'error' | 'start' | 'stop'> & {
  /** A background thread's tasks, named under it. */
  readonly remoteTasks?: readonly string[];
  /** Started but not running yet (no first pass, a thread not up): the service is not ready (OP-4). */
  readonly starting?: boolean;
  /** Tasks with a checkpoint: whether it has passed a position of the log. */
  hasReached?(position: number): Promise<boolean>;
};

@Injectable()
export class SubscriptionRegistry implements OnApplicationShutdown {
  private readonly subscriptions: BackgroundTask[] = [];
  private readonly started = new Set<BackgroundTask>();

  constructor(@Inject(CONFIG) private readonly config: Pick<ReveilleConfig, 'backgroundOnly' | 'backgroundExcept'>) {}

  register(subscription: BackgroundTask): void {
    this.subscriptions.push(subscription);
  }

  start(task: BackgroundTask): void {
    if (!this.subscriptions.includes(task)) this.register(task);
    this.started.add(task);
    task.start();
  }

  registered(): string[] {
    return this.subscriptions.map((s) => s.name);
  }

  /** Registered tasks that were never started are not listed. */
  names(): string[] {
    return [...this.started].flatMap((s) =>
      s.remoteTasks ? s.remoteTasks.map((name) => `${s.name}/${name}`) : [s.name],
    );
  }

  /** Started tasks whose first pass has not ended yet. */
  starting(): string[] {
    return [...this.started].filter((s) => s.starting).map((s) => s.name);
  }

  /** A task by name, started here or not (a background thread's tasks are registered on the HTTP thread too). */
  find(name: string): BackgroundTask | undefined {
    return this.subscriptions.find((s) => s.name === name);
  }

  failing(): Array<{ name: string; error: string }> {
    return this.subscriptions
      .filter((s) => s.error)
      .map((s) => ({ name: s.name, error: String((s.error as Error).message ?? s.error) }));
  }

  /**
   * REVEILLE_BACKGROUND_ONLY splits roles across processes. Called once the application is initialized, not from
   * this module's bootstrap hook: a global module's hooks run before CqrsModule's, which registers the command
   * handlers, and admission's first pass found no handler for its command on every start with a backlog.
   */
  startAll(): void {
    const { backgroundOnly: only, backgroundExcept: except = [] } = this.config;
    this.subscriptions
      .filter((s) => (!only || only.includes(s.name)) && !except.includes(s.name))
      .forEach((s) => this.start(s));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.stop()));
  }
}
