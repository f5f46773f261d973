import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiError, type ExecutionClaim, ExecutionsApi } from './executions-api.js';
import { runExecution } from './run-execution.js';
import type { WorkerEvent } from './worker-options.js';

/**
 * A raw HTTP/1.1 peer: answers each request with `answer(n)` (n counts requests over all connections), or resets
 * the connection instead when `answer` gives null, as a service does that closed an idle kept-alive socket.
 */
function peer(answer: (n: number, socket: number) => { status?: number; body: string } | null) {
  const keys: string[] = [];
  let sockets = 0;
  const server: Server = createServer((socket: Socket) => {
    const id = ++sockets;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        keys.push(/idempotency-key: (.+)/i.exec(head)?.[1]?.trim() ?? '');
        const answered = answer(keys.length, id);
        if (answered === null) return void socket.resetAndDestroy();
        const { status = 200, body } = answered;
        socket.write(
          `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
            `connection: keep-alive\r\n\r\n${body}`,
        );
      }
    });
  });
  return {
    keys,
    connections: () => sockets,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const settlement = { body: JSON.stringify({ decision: 'noncommitted' }) };

describe('EX-5 the consumer client over kept-alive HTTP connections', () => {
  it('resends a request once, under the same Idempotency-Key, when the kept-alive socket it reused was reset', async () => {
    // The second request arrives on the first connection, which the peer resets unanswered.
    const service = peer((n, socket) => (n === 2 && socket === 1 ? null : settlement));
    const api = new ExecutionsApi(await service.start(), 'token');
    try {
      expect(await api.settle('x-1', 's-1')).toEqual({ decision: 'noncommitted' });
      expect(await api.settle('x-2', 's-2')).toEqual({ decision: 'noncommitted' });
      expect(service.keys).toEqual(['settle:x-1:s-1', 'settle:x-2:s-2', 'settle:x-2:s-2']);
      expect(service.connections()).toBe(2);
    } finally {
      api.close();
      await service.stop();
    }
  });

  it('does not resend over a fresh connection that was reset: the request may have been acted on', async () => {
    const service = peer(() => null);
    const api = new ExecutionsApi(await service.start(), 'token');
    try {
      await expect(api.settle('x-1', 's-1')).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(service.keys).toEqual(['settle:x-1:s-1']);
    } finally {
      api.close();
      await service.stop();
    }
  });

  it('keeps one connection for requests one after another, and answers a problem as ApiError with its code', async () => {
    const problem = { status: 409, body: JSON.stringify({ code: 'fence_mismatch', title: 'Fence mismatch' }) };
    const service = peer((n) => (n < 3 ? settlement : problem));
    const api = new ExecutionsApi(await service.start(), async () => 'token');
    try {
      await api.settle('x-1', 's-1');
      await api.settle('x-1', 's-2');
      expect(service.connections()).toBe(1);
      await expect(api.settle('x-1', 's-3')).rejects.toEqual(
        new ApiError(409, 'fence_mismatch', '/v1/executions/x-1/settle: 409 fence_mismatch'),
      );
      await expect(api.settle('x-1', 's-3')).rejects.toMatchObject({ status: 409, code: 'fence_mismatch' });
    } finally {
      api.close();
      await service.stop();
    }
  });
});

const CLAIM: ExecutionClaim = {
  executionId: 'x-1',
  fence: 1,
  generation: 1,
  occurrenceId: 'o-1',
  triggerId: 't-1',
  triggerRevision: 1,
  missionId: 'm-1',
  lane: 'trigger:t-1',
  input: {},
};
const unavailable = { status: 503, body: JSON.stringify({ code: 'store_unavailable' }) };
const inFlight = { status: 409, body: JSON.stringify({ code: 'idempotency_key_in_flight' }) };
const completed = { body: JSON.stringify({ executionId: 'x-1', status: 'completed' }) };

describe('EX-2 EX-3 the consumer client through a restart of the service it talks to', () => {
  it('sends an unanswered completion again under its key (5xx, a reset fresh connection, the key in flight) until answered', async () => {
    const service = peer((n) => (n === 1 ? unavailable : n === 2 ? null : n === 3 ? inFlight : completed));
    const api = new ExecutionsApi(await service.start(), 'token');
    try {
      await api.complete(CLAIM, { outcome: 'succeeded' }, 10_000);
      expect(service.keys).toEqual(Array(4).fill('complete:x-1:1'));
    } finally {
      api.close();
      await service.stop();
    }
  });

  it('a worker being stopped sends an unanswered completion again for about 15 s more, not its whole 10 minutes', async () => {
    const service = peer(() => unavailable);
    const api = new ExecutionsApi(await service.start(), 'token');
    const stopping = new AbortController();
    stopping.abort();
    const started = Date.now();
    try {
      await expect(api.complete(CLAIM, { outcome: 'succeeded' }, 600_000, stopping.signal)).rejects.toMatchObject({
        status: 503,
      });
      expect(Date.now() - started).toBeLessThan(16_000);
      expect(service.keys.length).toBeGreaterThan(3);
    } finally {
      api.close();
      await service.stop();
    }
  }, 30_000);

  it('a definite answer is not sent again: 409 fence_mismatch at once', async () => {
    const service = peer(() => ({ status: 409, body: JSON.stringify({ code: 'fence_mismatch' }) }));
    const api = new ExecutionsApi(await service.start(), 'token');
    try {
      await expect(api.complete(CLAIM, { outcome: 'succeeded' }, 10_000)).rejects.toMatchObject({
        code: 'fence_mismatch',
      });
      expect(service.keys).toHaveLength(1);
    } finally {
      api.close();
      await service.stop();
    }
  });

  it('a claim-next whose answer was lost is asked for again under the same key, so a committed claim is replayed', async () => {
    const service = peer((n) => (n === 1 ? null : { body: JSON.stringify(CLAIM) }));
    const api = new ExecutionsApi(await service.start(), 'token');
    try {
      expect(await api.claimNext({ consumerId: 'w', waitSeconds: 0 })).toEqual(CLAIM);
      expect(service.keys).toHaveLength(2);
      expect(service.keys[1]).toBe(service.keys[0]);
    } finally {
      api.close();
      await service.stop();
    }
  });

  it('the worker completes a handler that succeeded through a brief outage, and settles nothing (no noncommit over a success)', async () => {
    const service = peer((n) => (n <= 2 ? unavailable : completed));
    const api = new ExecutionsApi(await service.start(), 'token');
    const events: WorkerEvent[] = [];
    try {
      await runExecution(
        api,
        CLAIM,
        async () => ({ receipt: { done: true } }),
        new AbortController().signal,
        (e) => events.push(e),
      );
      expect(events).toEqual([{ type: 'completed', executionId: 'x-1', outcome: 'succeeded' }]);
      expect(service.keys.every((key) => key === 'complete:x-1:1')).toBe(true);
    } finally {
      api.close();
      await service.stop();
    }
  });
});

describe('ApiError', () => {
  it('carries the status and the problem code', () => {
    const error = new ApiError(409, 'fence_mismatch', 'x');
    expect(error).toMatchObject({ status: 409, code: 'fence_mismatch', name: 'ApiError' });
  });
});
