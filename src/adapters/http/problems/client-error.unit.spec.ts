import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { clientErrorProblem } from './client-error.js';

/** A socket that records what the handler writes; the real-socket behaviour is in test/security/http-timeouts. */
function recordingSocket(state: { writable?: boolean; destroyed?: boolean } = {}) {
  const written: string[] = [];
  let destroyed = state.destroyed ?? false;
  let ended = false;
  const socket = Object.assign(new EventEmitter(), {
    writable: state.writable ?? true,
    get destroyed() {
      return destroyed;
    },
    write: (chunk: string) => written.push(chunk),
    end: (chunk?: string) => {
      if (chunk) written.push(chunk);
      ended = true;
    },
    destroy: () => (destroyed = true),
  });
  return { socket: socket as unknown as Socket, written, isDestroyed: () => destroyed, isEnded: () => ended };
}

const error = (code: string) => Object.assign(new Error(code), { code });

describe('client errors before routing (SEC-4, WH-1)', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
    ['HPE_INVALID_METHOD', 400, 'BAD_REQUEST'],
  ])('%s answers %i problem %s and closes the connection', (code, status, problemCode) => {
    const { socket, written, isEnded } = recordingSocket();
    clientErrorProblem(error(code), socket);
    const [head = '', body = ''] = written.join('').split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toContain('Content-Type: application/problem+json');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toMatchObject({ status, code: problemCode });
    // Ended after the problem (a FIN), not destroyed at once: a reset would drop the problem unread.
    expect(isEnded()).toBe(true);
  });

  it('destroys a connection whose client does not close its side within the grace period, and only then', () => {
    jest.useFakeTimers();
    try {
      const lingering = recordingSocket();
      clientErrorProblem(error('ERR_HTTP_REQUEST_TIMEOUT'), lingering.socket);
      jest.advanceTimersByTime(1_999);
      expect(lingering.isDestroyed()).toBe(false);
      jest.advanceTimersByTime(1);
      expect(lingering.isDestroyed()).toBe(true);
      // A client that closes in time leaves no timer behind.
      const polite = recordingSocket();
      clientErrorProblem(error('ERR_HTTP_REQUEST_TIMEOUT'), polite.socket);
      polite.socket.emit('close');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('writes nothing to a reset or already destroyed connection', () => {
    const reset = recordingSocket();
    clientErrorProblem(error('ECONNRESET'), reset.socket);
    expect(reset.written).toEqual([]);
    const gone = recordingSocket({ destroyed: true });
    clientErrorProblem(error('ERR_HTTP_REQUEST_TIMEOUT'), gone.socket);
    expect(gone.written).toEqual([]);
  });

  it('closes without writing when the socket can no longer be written', () => {
    const closing = recordingSocket({ writable: false });
    clientErrorProblem(error('ERR_HTTP_REQUEST_TIMEOUT'), closing.socket);
    expect(closing.written).toEqual([]);
    expect(closing.isDestroyed()).toBe(true);
  });
});
