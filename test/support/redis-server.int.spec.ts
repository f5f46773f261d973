import { readFileSync } from 'node:fs';
import { PortTaken, PrivateRedis, TEST_REDIS_URL } from './redis-server.js';

// wakeups.redis's "Redis stopped" case once sent successfully to its stopped Redis: another redis-server was
// answering on that port. The test's own Redis must be the one it stops, and no other suite may get its port.
describe('PrivateRedis (test support)', () => {
  it('refuses a port another redis-server holds instead of taking that server for its own', async () => {
    const taken = Number(new URL(TEST_REDIS_URL).port);
    await expect(PrivateRedis.startOn(taken)).rejects.toBeInstanceOf(PortTaken);
  });

  it('listens below the ephemeral range, where no port handed out by the OS can land while it is stopped', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const redis = await PrivateRedis.start();
    try {
      expect(redis.port).toBeLessThan(low);
    } finally {
      await redis.stop();
    }
  });

  it('stops its own server: the port answers no more', async () => {
    const redis = await PrivateRedis.start();
    const client = redis.client();
    try {
      expect(await client.ping()).toBe('PONG');
      await redis.stop();
      await expect(client.ping()).rejects.toThrow();
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});
