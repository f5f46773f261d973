/** The few HTTP calls `reveille apply` makes, as any client of the API would make them. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export class ServiceUnreachable extends Error {
  override readonly name = 'ServiceUnreachable';
}

export class ApplyClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  get(path: string): Promise<Answer> {
    return this.send('GET', path);
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
