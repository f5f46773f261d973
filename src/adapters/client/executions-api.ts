import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/** The claim body of `claim` and `claim-next`: what a handler receives. */
export interface ExecutionClaim {
  executionId: string;
  fence: number;
  generation: number;
  attempt?: number;
  occurrenceId: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  lane: string;
  scheduledAt?: string;
  firedAt?: string;
  input: unknown;
  ancestry?: unknown;
  limits?: { maxRuntimeSeconds?: number; budgetUnits?: number };
}

export type Completion =
  | { outcome: 'succeeded'; receipt?: unknown }
  | { outcome: 'failed'; retryable: boolean; error: { code: string; message: string } };

export interface Settlement {
  decision: 'committed' | 'noncommitted';
  /** Committed: exactly the receipt the completion carried (null when it had none). */
  receipt?: unknown;
  /** Committed: the completion the settlement lost to. */
  completion?: { fence: number; outcome: 'succeeded' | 'failed'; completedAt: string };
}

export type TokenSource = string | (() => Promise<string>);

/** A non-2xx answer; `code` is the problem+json `code` when the service sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Reads of one answer: status and the whole body. */
interface Answer {
  status: number;
  text: string;
}

/**
 * A request that may or may not have acted: no answer (a network error), a 5xx, or its key still held by a run of it
 * that has not answered (409 `idempotency_key_in_flight`). Sent again under the same key, it is answered as it acted.
 */
export const isUncertain = (error: unknown): boolean =>
  !(error instanceof ApiError) || error.status >= 500 || error.code === 'idempotency_key_in_flight';

/** How long a claim whose answer was lost is asked for again: a restart of the service it talked to. */
const CLAIM_RESEND_MS = 30_000;
/** How much longer an unanswered request is sent again once its worker is being stopped. */
const STOPPING_RESEND_MS = 15_000;
const RESEND_FIRST_MS = 100;
const RESEND_MOST_MS = 5_000;

/** A kept-alive socket the service had closed while it sat idle fails before any answer (Node's `reusedSocket`). */
const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The executions endpoints over `node:http`/`node:https` with kept-alive connections: a consumer sends two requests
 * per execution, and Node's `fetch` spent about five times the CPU of `http.request` on each (BENCHMARKS.md § deliver).
 * Every POST carries an Idempotency-Key (SEC-3), which is what makes resending one over a fresh connection safe.
 */
export class ExecutionsApi {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(
    baseUrl: string,
    private readonly token: TokenSource,
  ) {
    this.base = new URL(baseUrl);
    const secure = this.base.protocol === 'https:';
    this.transport = secure ? https : http;
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  /**
   * 204 (nothing became claimable within `waitSeconds`) is `undefined`. A claim the service committed and could not
   * answer (it died, the connection broke) is asked for again under the same key, and replayed: a claim never
   * expires (EX-2), so one this consumer never heard of would hold its execution for good.
   */
  claimNext(body: {
    consumerId: string;
    missionId?: string;
    triggerId?: string;
    waitSeconds: number;
  }): Promise<ExecutionClaim | undefined> {
    return this.postUntilAnswered('/v1/executions/claim-next', body, randomUUID(), CLAIM_RESEND_MS);
  }

  async claim(executionId: string, consumerId: string): Promise<ExecutionClaim> {
    const path = `/v1/executions/${encodeURIComponent(executionId)}/claim`;
    return (await this.postUntilAnswered(path, { consumerId }, randomUUID(), CLAIM_RESEND_MS))!;
  }

  /**
   * One key per fenced attempt: repeating the same completion replays the stored answer instead of acting twice. The
   * worker knows its outcome, so an unanswered completion is sent again for up to `withinMs` before anything else.
   */
  async complete(claim: ExecutionClaim, completion: Completion, withinMs = 0, stopping?: AbortSignal): Promise<void> {
    await this.postUntilAnswered(
      `/v1/executions/${encodeURIComponent(claim.executionId)}/complete`,
      { fence: claim.fence, ...completion },
      `complete:${claim.executionId}:${claim.fence}`,
      withinMs,
      stopping,
    );
  }

  async settle(executionId: string, settlementId: string, withinMs = 0, stopping?: AbortSignal): Promise<Settlement> {
    return (await this.postUntilAnswered<Settlement>(
      `/v1/executions/${encodeURIComponent(executionId)}/settle`,
      { settlementId },
      `settle:${executionId}:${settlementId}`,
      withinMs,
      stopping,
    ))!;
  }

  /** Closes the kept-alive connections (a request in flight ends with an error). */
  close(): void {
    this.agent.destroy();
  }

  /**
   * `post`, sent again under the same key while its answer is uncertain, with growing pauses, for up to `withinMs`;
   * once `stopping` aborts, for at most STOPPING_RESEND_MS more (a process being stopped is killed soon after).
   */
  private async postUntilAnswered<T = ExecutionClaim>(
    path: string,
    body: unknown,
    key: string,
    withinMs: number,
    stopping?: AbortSignal,
  ): Promise<T | undefined> {
    const deadline = Date.now() + withinMs;
    let stoppedAt: number | undefined;
    for (let delay = RESEND_FIRST_MS; ; delay = Math.min(delay * 2, RESEND_MOST_MS)) {
      try {
        return await this.post<T>(path, body, key);
      } catch (error) {
        if (stopping?.aborted) stoppedAt ??= Date.now();
        const end = stoppedAt === undefined ? deadline : Math.min(deadline, stoppedAt + STOPPING_RESEND_MS);
        if (!isUncertain(error) || Date.now() + delay > end) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async post<T = ExecutionClaim>(path: string, body: unknown, key: string): Promise<T | undefined> {
    const token = typeof this.token === 'string' ? this.token : await this.token();
    const payload = Buffer.from(JSON.stringify(body));
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'idempotency-key': key,
    };
    const { status, text } = await this.send(new URL(path, this.base), headers, payload, true);
    if (status === 204) return undefined;
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (status < 200 || status >= 300) {
      const code = typeof parsed.code === 'string' ? parsed.code : undefined;
      throw new ApiError(status, code, `${path}: ${status} ${code ?? (parsed.title as string) ?? ''}`);
    }
    return parsed as T;
  }

  private send(url: URL, headers: Record<string, string>, payload: Buffer, mayResend: boolean): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = this.transport.request(url, { method: 'POST', agent: this.agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // Sent again on a new connection under the same key: the service either never read it or answers it again.
        if (mayResend && request.reusedSocket && STALE_SOCKET_ERRORS.has(error.code ?? ''))
          resolve(this.send(url, headers, payload, false));
        else reject(error);
      });
      request.end(payload);
    });
  }
}
