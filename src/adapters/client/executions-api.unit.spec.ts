import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiError, ExecutionsApi } from './executions-api.js';

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

describe('ApiError', () => {
  it('carries the status and the problem code', () => {
    const error = new ApiError(409, 'fence_mismatch', 'x');
    expect(error).toMatchObject({ status: 409, code: 'fence_mismatch', name: 'ApiError' });
  });
});
