import { Redis } from 'ioredis';
import { type Wakeup, wakeupFields } from '../../domain/execution/wakeup.js';

const PING_TIMEOUT_MS = 1_000;

/** The Redis Stream consumers read with XREADGROUP; an entry is a hint to claim, never the execution itself. */
export class RedisWakeupStream {
  private readonly client: Redis;

  constructor(
    url: string,
    readonly stream: string,
    private readonly maxLen: number,
    onError: (error: Error) => void,
  ) {
    // No offline queue: while Redis is away a send fails at once and the batch stays behind the checkpoint,
    // instead of piling up in memory; ioredis keeps reconnecting by itself.
    this.client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.client.on('error', onError);
  }

  /** Resolves once Redis confirmed every entry of the batch (one pipelined round trip). */
  async send(wakeups: readonly Wakeup[]): Promise<void> {
    if (wakeups.length === 0) return;
    await this.connected();
    const pipeline = this.client.pipeline();
    for (const wakeup of wakeups) pipeline.xadd(this.stream, 'MAXLEN', '~', this.maxLen, '*', ...wakeupFields(wakeup));
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
    if (results.length !== wakeups.length) throw new Error(`redis confirmed ${results.length} of ${wakeups.length}`);
  }

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.connected().then(() => this.client.ping()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }

  private async connected(): Promise<void> {
    if (this.client.status === 'wait') await this.client.connect();
  }
}
