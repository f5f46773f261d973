/** The few HTTP calls `reveille apply` makes, as any client of the API would make them. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export class ServiceUnreachable extends Error {
  override readonly name = 'ServiceUnreachable';
}

export class ApplyClient {
  private serviceConfirmed = false;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  /**
   * A 404 is either an entry the service does not hold yet or a URL where no Reveille service is (a wrong path: a
   * Reveille behind it answers an unknown route 404 `not_found` as well, another server its own 404). The first
   * 404 of a run is told apart once: the service's liveness probe, `GET {url}/health/live`, must answer 200
   * `{"status":"ok"}`; else there is no service at that URL, one line as for an unreachable one (exit 1).
   */
  async confirmService(): Promise<void> {
    if (this.serviceConfirmed) return;
    const live = await this.send('GET', '/health/live');
    if (live.status !== 200 || live.body.status !== 'ok')
      throw new ServiceUnreachable(
        `no Reveille service found at ${this.baseUrl} (GET ${this.baseUrl}/health/live answered ${live.status}); set --url or REVEILLE_URL to the service's base URL`,
      );
    this.serviceConfirmed = true;
  }

  put(path: string, body: unknown, idempotencyKey: string): Promise<Answer> {
    return this.send('PUT', path, body, idempotencyKey);
  }

  private async send(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new ServiceUnreachable(`no service answers at ${this.baseUrl} (${cause}); set --url or REVEILLE_URL`);
    }
    const text = await response.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { detail: text.slice(0, 200) };
    }
    return { status: response.status, body: (parsed ?? {}) as Record<string, unknown> };
  }
}

/** `422 invalid_definition /source/sourceId: no source …`: the status, the code and what the service said. */
export function describeRefusal(answer: Answer): string {
  const { code, detail, title, errors } = answer.body as {
    code?: string;
    detail?: string;
    title?: string;
    errors?: Array<{ pointer?: string; message?: string }>;
  };
  const fields = Array.isArray(errors) ? errors.map((e) => `${e.pointer ?? ''}: ${e.message ?? ''}`) : [];
  const said = fields.length > 0 ? fields.join('; ') : (detail ?? title ?? '');
  return [answer.status, code, said].filter((part) => part !== undefined && part !== '').join(' ');
}
