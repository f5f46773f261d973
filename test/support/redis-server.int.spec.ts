import { PortTaken, PrivateRedis, TEST_REDIS_URL } from './redis-server.js';

// The test's own Redis must be the one it stops: a PONG from another suite's server on a reused port made
// wakeups.redis's "Redis stopped" case send to a Redis that was still up.
describe('PrivateRedis (test support)', () => {
  it('refuses a port another redis-server holds instead of taking that server for its own', async () => {
    const taken = Number(new URL(TEST_REDIS_URL).port);
    await expect(PrivateRedis.startOn(taken)).rejects.toBeInstanceOf(PortTaken);
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
