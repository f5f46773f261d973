import { randomUUID } from 'node:crypto';

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
  receipt?: unknown;
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

/** The executions endpoints over Node's fetch; every POST carries an Idempotency-Key (SEC-3). */
export class ExecutionsApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: TokenSource,
  ) {}

  /** 204 (nothing became claimable within `waitSeconds`) is `undefined`. */
  claimNext(body: {
    consumerId: string;
    missionId?: string;
    triggerId?: string;
    waitSeconds: number;
  }): Promise<ExecutionClaim | undefined> {
    return this.post('/v1/executions/claim-next', body, randomUUID());
  }

  async claim(executionId: string, consumerId: string): Promise<ExecutionClaim> {
    return (await this.post(`/v1/executions/${encodeURIComponent(executionId)}/claim`, { consumerId }, randomUUID()))!;
  }

  /** One key per fenced attempt: repeating the same completion replays the stored answer instead of acting twice. */
  async complete(claim: ExecutionClaim, completion: Completion): Promise<void> {
    await this.post(
      `/v1/executions/${encodeURIComponent(claim.executionId)}/complete`,
      { fence: claim.fence, ...completion },
      `complete:${claim.executionId}:${claim.fence}`,
    );
  }

  async settle(executionId: string, settlementId: string): Promise<Settlement> {
    return (await this.post<Settlement>(
      `/v1/executions/${encodeURIComponent(executionId)}/settle`,
      { settlementId },
      `settle:${executionId}:${settlementId}`,
    ))!;
  }

  private async post<T = ExecutionClaim>(path: string, body: unknown, key: string): Promise<T | undefined> {
    const token = typeof this.token === 'string' ? this.token : await this.token();
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    if (response.status === 204) return undefined;
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!response.ok) {
      const code = typeof parsed.code === 'string' ? parsed.code : undefined;
      throw new ApiError(
        response.status,
        code,
        `${path}: ${response.status} ${code ?? (parsed.title as string) ?? ''}`,
      );
    }
    return parsed as T;
  }
}
