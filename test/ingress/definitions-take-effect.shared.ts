import { randomUUID } from 'node:crypto';
import { missionGrants } from '../support/grants.js';
import { standardHeaders } from './ingress-client.js';

/** A running service as a test drives it: commands with a token and a fresh idempotency key, deliveries unsigned by it. */
export interface Service {
  baseUrl: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export async function deliver(service: Service, sourceId: string, secret: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${service.baseUrl}/v1/ingress/${sourceId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...standardHeaders(secret, body) },
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function ok(service: Service, method: string, path: string, body: unknown, status = 200) {
  const answer = await service.call(method, path, body);
  expect({ path, status: answer.status, body: answer.body }).toMatchObject({ path, status });
  return answer.body;
}

/** A Mission and a source with one key; answers the key's id and secret. */
export async function sourceWithKey(service: Service, name: string) {
  const grants = missionGrants({ maxExecutionsPerHour: 10_000, maxConcurrent: 10 });
  await ok(service, 'PUT', `/v1/missions/m-${name}`, { state: 'active', grants });
  await ok(service, 'PUT', `/v1/sources/s-${name}`, { scheme: 'standard-webhooks' });
  const key = await ok(service, 'POST', `/v1/sources/s-${name}/keys`, { keyId: 'k1' }, 201);
  return { missionId: `m-${name}`, sourceId: `s-${name}`, keyId: key.keyId as string, secret: key.secret as string };
}

/** The cases every store must pass: a definition written is in force for the very next delivery (WH-3, WH-7, OC-1). */
export function definitionsTakeEffectSuite(service: () => Service) {
  it('WH-7 OC-1 a delivery sent the instant a Trigger write answered is bound to it, never acknowledged as ignored (20 times)', async () => {
    const s = service();
    const { missionId, sourceId, secret } = await sourceWithKey(s, `race-${randomUUID().slice(0, 8)}`);
    const answers: Array<{ status: number; occurrences: unknown }> = [];
    for (let i = 0; i < 20; i++) {
      const triggerId = `t-race-${i}`;
      const written = await s.call('PUT', `/v1/triggers/${triggerId}`, {
        missionId,
        type: 'webhook',
        source: { sourceId, eventTypes: [`race.${i}`] },
      });
      expect(written.status).toBe(200);
      const delivered = await deliver(s, sourceId, secret, { type: `race.${i}`, id: randomUUID() });
      answers.push({ status: delivered.status, occurrences: delivered.body.occurrences });
    }
    expect(answers).toEqual(
      Array.from({ length: 20 }, (_, i) => ({
        status: 202,
        occurrences: [{ triggerId: `t-race-${i}`, occurrenceId: expect.any(String), status: 'observed' }],
      })),
    );
  });

  it('WH-7 a delivery sent the instant a Trigger revision moved it to other event types is mapped as of that revision', async () => {
    const s = service();
    const { missionId, sourceId, secret } = await sourceWithKey(s, `moved-${randomUUID().slice(0, 8)}`);
    for (let i = 0; i < 5; i++) {
      const [now, before] = [`kind.${i}`, `kind.${i - 1}`];
      await ok(s, 'PUT', '/v1/triggers/t-moved', {
        missionId,
        type: 'webhook',
        source: { sourceId, eventTypes: [now] },
      });
      const old = await deliver(s, sourceId, secret, { type: before, id: randomUUID() });
      const current = await deliver(s, sourceId, secret, { type: now, id: randomUUID() });
      expect({ i, old: old.body.occurrences, current: current.body.occurrences.map((o: any) => o.triggerId) }).toEqual({
        i,
        old: [],
        current: ['t-moved'],
      });
    }
  });

  it('WH-3 a key added is accepted by the very next delivery, and a key retired refused by it (signature_invalid)', async () => {
    const s = service();
    const { missionId, sourceId, secret: first } = await sourceWithKey(s, `keys-${randomUUID().slice(0, 8)}`);
    await ok(s, 'PUT', '/v1/triggers/t-keys', { missionId, type: 'webhook', source: { sourceId } });
    // The first key's source is now remembered by the ingress: what follows must not be answered from memory.
    expect((await deliver(s, sourceId, first, { type: 'x', id: randomUUID() })).status).toBe(202);
    let previous = first;
    for (let generation = 2; generation <= 4; generation++) {
      const added = await ok(s, 'POST', `/v1/sources/${sourceId}/keys`, { keyId: `k${generation}` }, 201);
      const withNew = await deliver(s, sourceId, added.secret, { type: 'x', id: randomUUID() });
      expect({ generation, status: withNew.status }).toEqual({ generation, status: 202 });
      const retiring = generation === 2 ? 'k1' : `k${generation - 1}`;
      await ok(s, 'DELETE', `/v1/sources/${sourceId}/keys/${retiring}`, { reason: 'rotated' });
      const withRetired = await deliver(s, sourceId, previous, { type: 'x', id: randomUUID() });
      expect({ generation, status: withRetired.status, code: withRetired.body.code }).toEqual({
        generation,
        status: 401,
        code: 'signature_invalid',
      });
      previous = added.secret;
    }
  });
}
