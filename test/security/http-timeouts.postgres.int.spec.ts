import { connect, type Socket } from 'node:net';
import { MAX_CLAIM_NEXT_WAIT_SECONDS } from '../../src/commands/claim-next-execution/claim-next-wait.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';

const HEADERS_MS = 500;
const REQUEST_MS = 1000;
const KEEP_ALIVE_MS = 500;
/** Node sweeps expired requests periodically (a quarter of the shortest timeout here) and schedules socket timers late. */
const SLACK_MS = 1500;

interface Outcome {
  /** Everything the server wrote before it closed the connection. */
  received: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/** A raw client: `drive` writes whatever it wants; resolves when the server closes the connection. */
function rawClient(port: number, drive: (socket: Socket) => void, giveUpMs = 15_000): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`the server still held the connection after ${giveUpMs} ms; received ${JSON.stringify(received)}`),
      );
    }, giveUpMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // a reset is a close too
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => drive(socket));
  });
}

/** Writes `piece` every `everyMs` until the server closes the connection: a slow sender. */
function trickle(socket: Socket, piece: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.writable) socket.write(piece);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** SEC-4: the cut is an RFC 9457 problem with a stable code, like every other error. */
function expectTimeoutProblem(received: string): void {
  const [head = '', body = ''] = received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 408 /);
  expect(head.toLowerCase()).toContain('content-type: application/problem+json');
  expect(head.toLowerCase()).toContain('connection: close');
  expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'request_timeout' });
}

/** Slow senders are cut by the server, never by the client (WH-1, issue #20 item 2). */
describe('HTTP server timeouts: slow senders are cut (WH-1, SEC-4) (postgres)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp('postgres', {
      env: {
        REVEILLE_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        REVEILLE_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      },
    });
    port = Number(new URL(t.baseUrl).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('WH-1 a body trickled slower than the request timeout gets 408 and the connection closed; nothing is stored', async () => {
    const token = await t.token();
    const body = JSON.stringify({ state: 'active', grants: {} });
    const outcome = await rawClient(port, (socket) => {
      socket.write(
        'PUT /v1/missions/m-trickled HTTP/1.1\r\nHost: reveille\r\ncontent-type: application/json\r\n' +
          `authorization: Bearer ${token}\r\nidempotency-key: ${newKey()}\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      let sent = 0;
      // One byte per 100 ms: the whole body would take longer than the request timeout.
      const timer = setInterval(() => {
        if (sent < body.length - 1 && socket.writable) socket.write(body[sent++]!);
      }, 100);
      socket.on('close', () => clearInterval(timer));
    });
    expectTimeoutProblem(outcome.received);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(outcome.closedAfterMs).toBeLessThan(REQUEST_MS + SLACK_MS);
    const read = await t.request({ method: 'GET', url: '/v1/missions/m-trickled', token });
    expect(read.status).toBe(404);
  });

  it('WH-1 a client that never finishes its headers is cut after the headers timeout', async () => {
    const outcome = await rawClient(port, (socket) => {
      socket.write('GET /health/live HTTP/1.1\r\nHost: reveille\r\n');
      trickle(socket, 'x-slow: 1\r\n', 50);
    });
    expectTimeoutProblem(outcome.received);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(outcome.closedAfterMs).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('WH-1 a slow sender that reads late still gets its 408: the cut closes after the problem, it does not reset', async () => {
    const outcome = await rawClient(port, (socket) => {
      socket.pause(); // a busy client: what the server writes waits in its kernel buffer, unread
      socket.write('GET /health/live HTTP/1.1\r\nHost: reveille\r\n');
      trickle(socket, 'x-slow: 1\r\n', 5);
      setTimeout(() => socket.resume(), HEADERS_MS + 700);
    });
    expectTimeoutProblem(outcome.received);
  });

  it('WH-1 a client that connects and sends nothing is cut after the headers timeout', async () => {
    const outcome = await rawClient(port, () => undefined);
    expectTimeoutProblem(outcome.received);
    expect(outcome.closedAfterMs).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('WH-1 an idle keep-alive connection is closed after the keep-alive timeout; the request on it was answered', async () => {
    let answeredAt = 0;
    let started = 0;
    const outcome = await rawClient(port, (socket) => {
      started = Date.now();
      socket.write('GET /health/live HTTP/1.1\r\nHost: reveille\r\nConnection: keep-alive\r\n\r\n');
      socket.once('data', () => (answeredAt = Date.now()));
    });
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.received.toLowerCase()).toContain('keep-alive: timeout=');
    const idleMs = outcome.closedAfterMs - (answeredAt - started);
    expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    // Node keeps the socket up to a second beyond the advertised `Keep-Alive: timeout=` against races with clients.
    expect(idleMs).toBeLessThan(KEEP_ALIVE_MS + 1000 + SLACK_MS);
  });

  it('WH-1 a normal request sent at once is answered, and two on one keep-alive connection', async () => {
    const outcome = await rawClient(port, (socket) => {
      const request = 'GET /health/live HTTP/1.1\r\nHost: reveille\r\n\r\n';
      socket.write(request + request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    });
    expect(outcome.received.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });

  it('EX-2 a claim-next long poll outlives the request and headers timeouts (they stop at the last request byte)', async () => {
    // The configured socket idle timeout is what bounds a silent answer: it must exceed the longest long poll.
    expect(t.config.timeouts.idleMs).toBeGreaterThan(MAX_CLAIM_NEXT_WAIT_SECONDS * 1000);
    const waitSeconds = 3; // > REQUEST_MS: a request timeout applied to the answer would cut it
    const started = Date.now();
    const answer = await t.request({
      method: 'POST',
      url: '/v1/executions/claim-next',
      key: newKey(),
      token: await t.token({ tenant: 'tenant-long-poll' }),
      body: { consumerId: 'worker', waitSeconds },
    });
    expect(answer.status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(waitSeconds * 1000 - 50);
  });
});
