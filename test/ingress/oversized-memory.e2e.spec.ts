import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { type ServeProcess, startServe } from '../support/serve-process.js';

const MiB = 1024 * 1024;
/** What the attacker streams: far more than the service could hold without it showing in its peak memory. */
const ATTACK_BYTES = 512 * MiB;
/** Peak growth allowed: socket buffers and garbage chunks awaiting collection, not the body. */
const MAX_PEAK_GROWTH = 128 * MiB;

/** Kernel-reported memory of a process (Linux): resident now and the peak since the last reset. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * WH-1 in the service's own process, so its memory can be read off the kernel: a forged, chunked
 * body (no Content-Length to trust) hundreds of MiB long, against a source capped at 1 KiB.
 */
describe('WH-1 an oversized forged request is refused in bounded memory and stores nothing', () => {
  let serve: ServeProcess;
  const canMeasure = process.platform === 'linux';

  beforeAll(async () => {
    serve = await startServe({ background: 'on', scope: 'missions:write sources:write triggers:write operator:read' });
    const grants = {
      maxExecutionsPerHour: 100,
      maxConcurrent: 10,
      resourceScopes: [],
      classification: 'internal',
      acceptLowerTrust: false,
      maxCausalDepth: 4,
    };
    expect((await serve.call('PUT', '/v1/missions/m-big', { state: 'active', grants })).status).toBe(200);
    expect(
      (await serve.call('PUT', '/v1/sources/s-big', { scheme: 'standard-webhooks', maxBodyBytes: 1024 })).status,
    ).toBe(200);
    expect((await serve.call('POST', '/v1/sources/s-big/keys', {})).status).toBe(201);
    expect(
      (
        await serve.call('PUT', '/v1/triggers/t-big', {
          missionId: 'm-big',
          type: 'webhook',
          source: { sourceId: 's-big', eventTypes: [] },
        })
      ).status,
    ).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await serve?.close();
  });

  it('WH-1 a 512 MiB chunked body against a 1 KiB cap: 413, peak memory grows by far less than the body, the connection is cut before the attacker is done, no row anywhere', async () => {
    if (!canMeasure) return expect(process.platform).not.toBe('linux');
    const pid = serve.child.pid!;
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets the peak (VmHWM) to the current resident size
    const before = memoryOf(pid);
    const { answer, sent } = await streamForged(new URL(serve.baseUrl), '/v1/ingress/s-big', ATTACK_BYTES);
    const after = memoryOf(pid);
    expect(after.peak - before.rss).toBeLessThan(MAX_PEAK_GROWTH);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(sent).toBeLessThan(ATTACK_BYTES); // the service cut the connection: the attacker never got to send it all
    for (const table of ['events', 'auth_replay']) {
      const rows = await serve.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'events' ? `type = 'OccurrenceObserved'` : 'true'}`,
      );
      expect([table, rows.rows[0]!.n]).toEqual([table, 0]);
    }
  }, 120_000);
});

/**
 * An attacker's client over a raw socket: a signed-looking request with a chunked body of `bytes`,
 * written as fast as the connection takes it while the answer is read as it comes (fetch, by
 * contrast, may fail the whole request once the server stops reading, losing an answer it received).
 */
async function streamForged(base: URL, path: string, bytes: number): Promise<{ answer: string; sent: number }> {
  const socket = connect(Number(base.port), base.hostname);
  let answer = '';
  let open = true;
  socket.on('data', (data: Buffer) => (answer += data.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('close', () => (open = false));
  socket.on('error', () => undefined); // EPIPE/ECONNRESET once the service cuts the connection
  const timestamp = Math.floor(Date.now() / 1000);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${base.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
      `webhook-id: msg_big\r\nwebhook-timestamp: ${timestamp}\r\nwebhook-signature: v1,AAAA\r\n\r\n`,
  );
  const chunk = Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), Buffer.alloc(MiB, 0x7b), Buffer.from('\r\n')]);
  let sent = 0;
  while (open && sent < bytes) {
    const flushed = socket.write(chunk);
    sent += MiB;
    if (!flushed) await new Promise<void>((resolve) => (socket.once('drain', resolve), socket.once('close', resolve)));
    // A write the kernel took whole returns true: without a turn of the event loop here the loop would write on
    // and never read the 413 before the cut's reset arrives (then the next write fails and the socket is gone).
    else await new Promise((resolve) => setImmediate(resolve));
  }
  if (open) socket.end('0\r\n\r\n');
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  socket.destroy();
  return { answer, sent };
}
