import { createServer } from 'node:net';

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
