import { threadPools } from '../config/background.section.js';
import { POLL_LOOP } from '../poll/poll-loop.js';

/** What one worker thread of `serve` runs (REVEILLE_BACKGROUND=thread); handed to it as its workerData. */
export interface ThreadRole {
  /** How the HTTP thread lists it, and its tasks under it, on /health/ready. */
  name: 'background-thread' | 'poller-thread';
  /** Its tasks: null for all of them but `except`. */
  only: readonly string[] | null;
  except: readonly string[];
  /** Its share of REVEILLE_DB_POOL. */
  databasePool: number;
  /** Its appends wake the other threads' subscriptions at once (a poll's Occurrences, for admission). */
  reportsAppends: boolean;
  /** It is told of the other threads' appends (its subscriptions wait for them). */
  receivesAppends: boolean;
}

/**
 * The poll loop gets a thread of its own beside the other background work: on one event loop, admission and the
 * read models folding a busy poller's Occurrences delayed the next polls (BENCHMARKS.md, poll). `only` is
 * REVEILLE_BACKGROUND_ONLY: a process that runs no poll loop spawns no poller thread.
 */
export function threadPlan(only: readonly string[] | null, pool: number): { httpPool: number; roles: ThreadRole[] } {
  const polls = !only || only.includes(POLL_LOOP);
  const rest = only ? only.filter((name) => name !== POLL_LOOP) : null;
  const folds = rest === null || rest.length > 0;
  const pools = threadPools(pool, polls && folds);
  const roles: ThreadRole[] = [];
  if (folds)
    roles.push({
      name: 'background-thread',
      only: rest,
      except: polls ? [POLL_LOOP] : [],
      databasePool: pools.worker,
      reportsAppends: false,
      receivesAppends: true,
    });
  if (polls)
    roles.push({
      name: 'poller-thread',
      only: [POLL_LOOP],
      except: [],
      databasePool: folds ? pools.poller : pools.worker,
      reportsAppends: folds,
      receivesAppends: false,
    });
  return { httpPool: pools.http, roles };
}
