import { Webhook } from 'standardwebhooks';
import { missionGrants } from '../support/grants.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';

type Line = { level: string; context?: string; message: any };

function lines(serve: ServeProcess): Line[] {
  return serve
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Line);
}

const GRANTS = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 4 });
const SCOPE = 'missions:write sources:write triggers:write occurrences:write operator:read';

async function webhookSource(serve: ServeProcess) {
  expect((await serve.call('PUT', '/v1/missions/m-log', { state: 'active', grants: GRANTS })).status).toBe(200);
  expect((await serve.call('PUT', '/v1/sources/s-log', { scheme: 'standard-webhooks' })).status).toBe(200);
  const key = await serve.call('POST', '/v1/sources/s-log/keys', {});
  expect(key.status).toBe(201);
  return key.body.secret as string;
}

describe('OP-4 structured logs of `reveille serve`', () => {
  let serve: ServeProcess;

  beforeAll(async () => {
    serve = await startServe({ background: 'on', scope: SCOPE });
  }, 180_000);
  afterAll(async () => {
    await serve?.close();
  });

  it('OP-4 a request line per REST request: request id (sent back as x-request-id), route template, status, code', async () => {
    const put = await serve.call('PUT', '/v1/missions/m-secret-name', { state: 'active', grants: GRANTS });
    const bad = await serve.call('PUT', '/v1/missions/m-2', {
      state: 'active',
      grants: { ...GRANTS, maxConcurrent: -1 },
    });
    expect(put.status).toBe(200);
    expect(bad.status).toBe(422);
    const [putId, badId] = [put.headers.get('x-request-id'), bad.headers.get('x-request-id')];
    expect(putId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(badId).not.toBe(putId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const requests = lines(serve).filter((l) => l.context === 'Http' && l.message?.msg === 'request');
    expect(requests.find((l) => l.message.requestId === putId)?.message).toMatchObject({
      method: 'PUT',
      route: '/v1/missions/:missionId',
      status: 200,
    });
    expect(requests.find((l) => l.message.requestId === badId)?.message).toMatchObject({
      status: 422,
      code: 'invalid_definition',
    });
    // The route template, never the path's ids.
    expect(serve.stdout()).not.toContain('m-secret-name');
  });

  it('OP-4 WH-1 refused webhooks are logged sampled per source and reason, never with body or signature', async () => {
    const secret = await webhookSource(serve);
    const body = JSON.stringify({ action: 'do-not-log-this-body' });
    const signature = new Webhook(secret).sign('msg_1', new Date(), body).replace(/.$/, 'A');
    for (let i = 0; i < 25; i++) {
      const answer = await fetch(`${serve.baseUrl}/v1/ingress/s-log`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': `msg_${i}`,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': signature,
        },
      });
      expect(answer.status).toBe(401);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = lines(serve).filter((l) => l.message?.msg === 'webhook refused');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThan(25);
    expect(refused[0].message).toMatchObject({ sourceId: 's-log', status: 401, code: 'signature_invalid' });
    expect(serve.stdout()).not.toContain('do-not-log-this-body');
    expect(serve.stdout()).not.toContain(signature.split(',')[1]);
    expect(serve.stdout()).not.toContain(secret);
  });

  it('OP-4 after requests, every stdout line is one JSON object; Nest wiring and readiness polls are not logged at info', () => {
    const written = lines(serve);
    expect(written.length).toBeGreaterThan(0);
    expect(
      written.filter((l) => ['InstanceLoader', 'RouterExplorer', 'RoutesResolver'].includes(l.context ?? '')),
    ).toEqual([]);
    expect(serve.readiness.length).toBeGreaterThan(0);
    expect(written.filter((l) => String(l.message?.route ?? '').startsWith('/health/'))).toEqual([]);
  });

  it('OP-4 SIGTERM leaves a last line naming the signal', async () => {
    const exited = new Promise((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGTERM');
    await exited;
    expect(lines(serve).at(-1)).toMatchObject({
      context: 'Reveille',
      message: { msg: 'shutting down', signal: 'SIGTERM' },
    });
  });
});

describe('OP-4 REVEILLE_LOG_LEVEL=debug adds decisions and Nest wiring', () => {
  let serve: ServeProcess;

  beforeAll(async () => {
    serve = await startServe({ background: 'on', scope: SCOPE, env: { REVEILLE_LOG_LEVEL: 'debug' } });
  }, 180_000);
  afterAll(async () => {
    await serve?.close();
  });

  it('OP-4 a decision is a debug line naming occurrence, status and reason; wiring and probes are debug lines', async () => {
    expect((await serve.call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
    expect((await serve.call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
    const fired = await serve.call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: {} });
    expect(fired.body).toMatchObject({ status: 'admitted' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const written = lines(serve);
    expect(
      written.find((l) => l.message?.msg === 'decided' && l.message.occurrenceId === fired.body.occurrenceId),
    ).toMatchObject({ level: 'debug', context: 'Admission', message: { status: 'admitted', reason: null } });
    expect(written.some((l) => l.level === 'debug' && l.context === 'RouterExplorer')).toBe(true);
    expect(written.some((l) => l.level === 'debug' && l.message?.route === '/health/ready')).toBe(true);
  });
});
