import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';

/**
 * A TCP port on loopback that the OS just handed out and released. Tests that start servers in
 * their own processes take their port from here, never from a random range: two suites drawing the
 * same random number made one service fail with EADDRINUSE (and could make a readiness probe reach
 * the other suite's service).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port below the OS's ephemeral range, for a server a test stops and starts again on the same port:
 * while it is down, `freePort()` (and every outgoing connection) of other suites can never be handed that port,
 * so whatever reconnects to it reaches this test's server or nothing.
 */
export async function freeStablePort(): Promise<number> {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  for (;;) {
    const port = 10000 + Math.floor(Math.random() * Math.max(low - 10000, 1000));
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
