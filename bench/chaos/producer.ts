import { createHmac } from 'node:crypto';

/** What a webhook producer saw: the delivery ids it was told were accepted, and every other answer. */
export interface ProducerTally {
  acked: Set<string>;
  /** Answers by status, acknowledgements included. */
  statuses: Map<number, number>;
  /** Refused connections, resets and timeouts (the service was down or went down mid-request). */
  connectionErrors: number;
  /** Deliveries given up after `giveUpMs` of retries (a real producer would alert). */
  gaveUp: number;
  /** Time of every acknowledgement, for recovery times. */
  ackTimes: number[];
}

export function newTally(): ProducerTally {
  return { acked: new Set(), statuses: new Map(), connectionErrors: 0, gaveUp: 0, ackTimes: [] };
}

/**
 * A Standard Webhooks producer as the spec expects one: each delivery has its own id and is retried with
 * the same bytes until a 2xx; anything else (refused connection, 5xx, 429) is retried after a pause.
 */
export class Producer {
  private readonly key: Buffer;

  constructor(
    private readonly url: string,
    secret: string,
    private readonly options: { giveUpMs?: number; timeoutMs?: number } = {},
  ) {
    this.key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  }

  signed(id: string, payload: unknown): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify(payload);
    return { body, headers: this.signedText(id, body, String(Math.floor(Date.now() / 1000))) };
  }

  /** Headers signing exactly `body`, whatever it holds (hostile text included). */
  signedText(id: string, body: string, timestamp: string): Record<string, string> {
    const signature = createHmac('sha256', this.key).update(`${id}.${timestamp}.${body}`).digest('base64');
    return {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    };
  }

  /** Delivers `id` until acknowledged; answers whether it was. */
  async deliver(id: string, payload: unknown, tally: ProducerTally): Promise<boolean> {
    const { body, headers } = this.signed(id, payload);
    const giveUpAt = Date.now() + (this.options.giveUpMs ?? 120_000);
    while (Date.now() < giveUpAt) {
      try {
        const response = await fetch(this.url, {
          method: 'POST',
          body,
          headers,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        await response.arrayBuffer();
        tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200 || response.status === 202) {
          tally.acked.add(id);
          tally.ackTimes.push(Date.now());
          return true;
        }
      } catch {
        tally.connectionErrors += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 100));
    }
    tally.gaveUp += 1;
    return false;
  }
}

/** Runs `work(i)` for i in [0, count) on `concurrency` lanes. */
export async function inLanes(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

export function count5xx(tally: ProducerTally, except: number[] = []): number {
  return [...tally.statuses].filter(([s]) => s >= 500 && !except.includes(s)).reduce((sum, [, n]) => sum + n, 0);
}
