import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRequest {
  path: string;
  query: URLSearchParams;
  at: number;
  /** The Authorization header the poll sent, if any. */
  authorization: string | null;
}

export type UpstreamHandler = (request: UpstreamRequest, res: ServerResponse, req: IncomingMessage) => void;

/**
 * A real HTTP server on an OS-assigned loopback port standing in for a polled API. Each path has its own
 * handler; every request is recorded, with the most requests ever in flight at once per path (PO-3: one poller at
 * a time for a Trigger; other Triggers' polls may overlap it).
 */
export class PollUpstream {
  readonly requests: UpstreamRequest[] = [];
  private readonly handlers = new Map<string, UpstreamHandler>();
  private readonly inFlight = new Map<string, { now: number; max: number }>();
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<PollUpstream> {
    let upstream: PollUpstream | undefined;
    const server = createServer((req, res) => upstream!.handle(req, res));
    server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = new PollUpstream(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return upstream;
  }

  /** The URL a Trigger polls for `path`. */
  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  on(path: string, handler: UpstreamHandler): void {
    this.handlers.set(path, handler);
  }

  /** Pages by cursor: `pages[cursor ?? '']` is answered as JSON. */
  pages(path: string, pages: Record<string, unknown>, cursorParam = 'cursor'): void {
    this.on(path, (request, res) => json(res, pages[request.query.get(cursorParam) ?? ''] ?? { items: [] }));
  }

  /** The most requests to `path` that were ever in flight at once. */
  maxInFlightTo(path: string): number {
    return this.inFlight.get(path)?.max ?? 0;
  }

  requestsTo(path: string): UpstreamRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const request = {
      path: url.pathname,
      query: url.searchParams,
      at: Date.now(),
      authorization: req.headers.authorization ?? null,
    };
    this.requests.push(request);
    const inFlight = this.inFlight.get(url.pathname) ?? { now: 0, max: 0 };
    this.inFlight.set(url.pathname, inFlight);
    inFlight.max = Math.max(inFlight.max, ++inFlight.now);
    res.on('close', () => inFlight.now--);
    const handler = this.handlers.get(url.pathname);
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    handler(request, res, req);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export function json(res: ServerResponse, body: unknown, status = 200): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}
