import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freeStablePort } from './free-port.js';

/** The machine's shared Redis; tests use their own stream names on it. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A redis-server the test can stop and start again on the same port, without persistence. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  /**
   * Below the ephemeral range, so no other suite is handed the port while this server is stopped. Another
   * PrivateRedis can still draw the same one: then this redis-server cannot bind it and the PONG came from the
   * other server, so the first start moves to another port.
   */
  static async start(): Promise<PrivateRedis> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await PrivateRedis.startOn(await freeStablePort());
      } catch (error) {
        if (!(error instanceof PortTaken) || attempt === 5) throw error;
      }
    }
  }

  /** On this port only: PortTaken when another server holds it. */
  static async startOn(port: number): Promise<PrivateRedis> {
    const redis = new PrivateRedis(port);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(this.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        // Whose server answered: a test that stops "its" Redis must not be talking to another suite's.
        const serving = /process_id:(\d+)/.exec(await probe.info('server'))?.[1];
        if (serving === String(child.pid)) return;
        if (serving !== undefined && child.exitCode !== null) {
          this.child = null;
          throw new PortTaken(this.port);
        }
      } catch (error) {
        if (error instanceof PortTaken) throw error;
        if (child.exitCode !== null) throw new Error(`redis-server on ${this.port} did not start`);
      } finally {
        probe.disconnect();
      }
      if (Date.now() > deadline) throw new Error(`redis-server on ${this.port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM with `--save ""`: the data goes with it, as after a crash of an unpersisted Redis. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  client(): Redis {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    return client;
  }
}

export class PortTaken extends Error {
  constructor(port: number) {
    super(`port ${port} was taken by another server before redis-server could bind it`);
  }
}

/** The entries of a stream as field maps, in stream order. */
export async function streamEntries(client: Redis, stream: string): Promise<Array<Record<string, string>>> {
  const entries = await client.xrange(stream, '-', '+');
  return entries.map(([, fields]) => {
    const record: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
    return record;
  });
}
