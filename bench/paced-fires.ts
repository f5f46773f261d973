import { randomUUID } from 'node:crypto';
import http from 'node:http';

/**
 * Fires spaced evenly at `rate` per second for `seconds` (up to `maxInFlight` at once), each `?wait=decision`.
 * Not autocannon's `overallRate`: it splits the rate over its connections, which start together and stay in step,
 * so "20/s over 16 connections" arrived as bursts of 16 fires in the same millisecond about once a second, and a
 * "paced" latency measured how long a burst of 16 took to drain. Returns the number answered 200.
 */
export async function firePaced(
  baseUrl: string,
  path: string,
  token: string,
  { rate, seconds, maxInFlight = 16 }: { rate: number; seconds: number; maxInFlight?: number },
): Promise<{ answered: number; answers: Record<string, number> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const url = new URL(path, baseUrl);
  const answers: Record<string, number> = {};
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  try {
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      const request = post(agent, url, token, JSON.stringify({ input: { paced: i } })).then(
        (status) => void (answers[status] = (answers[status] ?? 0) + 1),
        () => void (answers.error = (answers.error ?? 0) + 1),
      );
      const tracked = request.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
  }
  return { answered: answers['200'] ?? 0, answers };
}

function post(agent: http.Agent, url: URL, token: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'idempotency-key': randomUUID(),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(String(response.statusCode)));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
