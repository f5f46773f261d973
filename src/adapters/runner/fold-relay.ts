import { isMainThread } from 'node:worker_threads';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PENDING_EXECUTIONS_PROJECTION } from '../../projections/pending-executions/pending-executions.projection.js';
import { SQL_CLIENT, type SqlClient, type SqlNotifications } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { ProjectionRunners } from './projection-runners.js';

const TOPIC = 'pending_folded';
/** How long a sender trusts its last look for listeners: a process that starts listening is told within it. */
const LISTENERS_RECHECK_MS = 2_000;

/**
 * A parked claim-next wakes when the pending-executions read model folds (EX-2). A process that serves HTTP but
 * does not fold it (REVEILLE_BACKGROUND=off, or a REVEILLE_BACKGROUND_ONLY without it) heard of no fold and found
 * new work only on its 100 ms re-read. The process that folds tells the others through PostgreSQL LISTEN/NOTIFY,
 * only while some session listens (looked up at most every LISTENERS_RECHECK_MS), so a single process, or several
 * that all fold, send nothing. A missed message costs that re-read, nothing more.
 */
@Injectable()
export class FoldRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FoldRelay');
  private stopListening: (() => Promise<void>) | null = null;
  private sending = false;
  private again = false;
  private listenersSeen = false;
  private listenersCheckedAt = -Infinity;
  private warned = false;

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly runners: ProjectionRunners,
    @Inject(CONFIG) private readonly config: Pick<ReveilleConfig, 'background' | 'backgroundOnly'>,
  ) {
    const notifications = sql.notifications;
    if (notifications) runners.get(PENDING_EXECUTIONS_PROJECTION).onFoldedHere(() => void this.tell(notifications));
  }

  onApplicationBootstrap(): void {
    const notifications = this.sql.notifications;
    if (!notifications || !isMainThread || this.foldsHere()) return;
    const runner = this.runners.get(PENDING_EXECUTIONS_PROJECTION);
    this.stopListening = notifications.listen(TOPIC, () => runner.notifyFolded());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopListening?.();
  }

  /** Whether this process (one of its threads) runs the pending-executions read model. */
  private foldsHere(): boolean {
    const { background, backgroundOnly } = this.config;
    return (
      background !== 'off' &&
      (!backgroundOnly || backgroundOnly.includes(`projection:${PENDING_EXECUTIONS_PROJECTION}`))
    );
  }

  /** One message in flight at a time: folds meanwhile are told by one more message after it. */
  private async tell(notifications: SqlNotifications): Promise<void> {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    try {
      do {
        this.again = false;
        if (await this.anyoneListens(notifications)) await notifications.notify(TOPIC, '');
      } while (this.again);
    } catch (error) {
      // Listeners re-read on their own every 100 ms: a lost message only delays them.
      if (!this.warned) this.logger.warn(`folds not relayed: ${(error as Error).message}`);
      this.warned = true;
    } finally {
      this.sending = false;
    }
  }

  private async anyoneListens(notifications: SqlNotifications): Promise<boolean> {
    if (performance.now() - this.listenersCheckedAt >= LISTENERS_RECHECK_MS) {
      this.listenersCheckedAt = performance.now();
      this.listenersSeen = await notifications.listening(TOPIC);
    }
    return this.listenersSeen;
  }
}
