import { createHmac, randomUUID } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { newKey, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

/** Test-side producers: deliveries signed by the real client libraries, sent over real HTTP. */
export async function post(t: TestApp, sourceId: string, body: string | Buffer, headers: Record<string, string>) {
  const response = await fetch(`${t.baseUrl}/v1/ingress/${sourceId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: parsed };
}

export function standardHeaders(secret: string, body: string, options: { id?: string; at?: Date } = {}) {
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  const signature = new Webhook(secret).sign(id, at, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/** A Standard Webhooks signature over raw bytes (the library signs a string as UTF-8), for bodies in other encodings. */
export function signRaw(secret: string, headers: { 'webhook-id': string; 'webhook-timestamp': string }, body: Buffer) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const hmac = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`);
  return `v1,${hmac.update(body).digest('base64')}`;
}

export async function githubHeaders(secret: string, body: string, options: { id?: string; event?: string } = {}) {
  return {
    'x-hub-signature-256': await githubSign(secret, body),
    'x-github-delivery': options.id ?? randomUUID(),
    'x-github-event': options.event ?? 'push',
  };
}

export const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 5, acceptLowerTrust: true });

/** A Mission, a source with one key, and a webhook Trigger bound to it; answers ids and the secret. */
export async function webhookSetup(
  t: TestApp,
  name: string,
  options: {
    scheme?: string;
    source?: Record<string, unknown>;
    trigger?: Record<string, unknown>;
    tenant?: string;
    mission?: Record<string, unknown>;
  } = {},
) {
  const token = await t.token({ tenant: options.tenant ?? 'tenant-a' });
  const missionId = `m-${name}`;
  const sourceId = `s-${name}`;
  const triggerId = `t-${name}`;
  const scheme = options.scheme ?? 'standard-webhooks';
  expect(
    (
      await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        token,
        body: { state: 'active', grants: { ...grants, ...options.mission } },
      })
    ).status,
  ).toBe(200);
  const source = await t.request({
    method: 'PUT',
    url: `/v1/sources/${sourceId}`,
    key: newKey(),
    token,
    body: { scheme, ...options.source },
  });
  expect(source.status).toBe(200);
  let secret = '';
  if (scheme !== 'unsigned') {
    const key = await t.request({
      method: 'POST',
      url: `/v1/sources/${sourceId}/keys`,
      key: newKey(),
      token,
      body: {},
    });
    expect(key.status).toBe(201);
    secret = key.body.secret;
  }
  const trigger = await t.request({
    method: 'PUT',
    url: `/v1/triggers/${triggerId}`,
    key: newKey(),
    token,
    body: { missionId, type: 'webhook', source: { sourceId, eventTypes: [] }, ...options.trigger },
  });
  expect(trigger.status).toBe(200);
  await t.catchUp(); // the source-bindings read model maps deliveries to Triggers
  return { missionId, sourceId, triggerId, secret, token };
}

/**
 * A delivery written byte for byte on a socket, header lines as given (two copies of one header, an obs-fold), where
 * fetch would join or refuse them. Answers the status and the parsed body.
 */
export async function rawPost(
  t: TestApp,
  sourceId: string,
  headerLines: readonly string[],
  body: string,
): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(t.baseUrl);
  const { connect } = await import('node:net');
  const bytes = Buffer.from(body);
  const head = [
    `POST /v1/ingress/${sourceId} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Content-Type: application/json',
    `Content-Length: ${bytes.length}`,
    'Connection: close',
    ...headerLines,
  ].join('\r\n');
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), bytes])),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text (a chunked or non-JSON answer) */
  }
  return { status, body: parsed };
}
