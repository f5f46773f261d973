import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';

/**
 * The poll bench's upstream, in a worker thread so the load it answers never waits on the bench's own event
 * loop (and the service runs in its own process). `GET /feed/<triggerId>[?cursor=n]` answers page n: ITEMS new
 * items whose ids (`n.k`) are unique per Trigger and poll, and `next: n + 1`. Each request's arrival (host clock,
 * ms) is kept and handed to the parent on `dump`.
 */
const ITEMS = 10;
const arrivals: Array<[string, number, number]> = [];

const server = createServer((request, response) => {
  const at = Date.now();
  const url = new URL(request.url ?? '/', 'http://upstream');
  const triggerId = url.pathname.slice('/feed/'.length);
  const page = Number(url.searchParams.get('cursor') ?? '0');
  arrivals.push([triggerId, page, at]);
  const items = Array.from({ length: ITEMS }, (_, k) => ({ id: `${page}.${k}`, page, k, body: 'x'.repeat(64) }));
  const body = JSON.stringify({ items, next: String(page + 1) });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as AddressInfo).port }));

parentPort!.on('message', (message: string) => {
  if (message === 'dump') parentPort!.postMessage({ arrivals });
});
