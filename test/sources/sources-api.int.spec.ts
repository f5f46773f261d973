import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { sourcesApi } from './fixtures.js';

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** Every text column of the tables a secret must never reach (events, idempotency answers). */
async function storedTexts(t: TestApp): Promise<string[]> {
  const events = await t.sql.query<{ d: string }>(`SELECT data::text || metadata::text AS d FROM events`);
  const answers = await t.sql.query<{ d: string }>(`SELECT row_to_json(k)::text AS d FROM idempotency_keys k`);
  return [...events.rows, ...answers.rows].map((r) => r.d);
}

describe('Sources API on postgres (WH-3, SEC-2, SEC-3)', () => {
  let t: TestApp;
  let api: ReturnType<typeof sourcesApi>;
  let n = 0;
  const id = () => `src-${++n}`;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    api = sourcesApi(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates revision 1 with every default written out, revises it, and reads it back', async () => {
    const s = id();
    const created = await api.put(s, {
      expectedRevision: 0,
      scheme: 'standard-webhooks',
      schema: { required: ['/type', '/id'] },
      reason: 'onboard',
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ sourceId: s, revision: 1, position: expect.any(Number) });
    const revised = await api.put(s, {
      expectedRevision: 1,
      scheme: 'standard-webhooks',
      toleranceSeconds: 60,
      correlationPointer: '/metadata/reveille_correlation',
    });
    expect(revised.body).toMatchObject({ revision: 2 });
    expect(
      (
        await api.put(s, {
          scheme: 'standard-webhooks',
          toleranceSeconds: 60,
          correlationPointer: '/metadata/reveille_correlation',
        })
      ).body,
    ).toMatchObject({ revision: 2 });
    const read = await api.get(s);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      sourceId: s,
      revision: 2,
      scheme: 'standard-webhooks',
      toleranceSeconds: 60,
      maxBodyBytes: 262_144,
      rateLimit: { perSecond: 50, burst: 100 },
      eventTypePointer: '/type',
      deliveryIdFrom: 'header',
      correlationPointer: '/metadata/reveille_correlation',
      schema: { required: [] },
      format: 'json',
      keys: [],
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('WH-6 a webhook Trigger naming a source its tenant does not hold is 422 invalid_definition at /source/sourceId', async () => {
    const s = id();
    expect((await api.put(s, { scheme: 'standard-webhooks' })).status).toBe(200);
    const grants = { maxExecutionsPerHour: 10, maxConcurrent: 1, resourceScopes: [], classification: 'internal' };
    const putAs = async (tenant: string, url: string, body: unknown) =>
      t.request({ method: 'PUT', url, key: newKey(), token: await t.token({ tenant }), body });
    for (const tenant of ['tenant-a', 'tenant-b']) {
      const mission = await putAs(tenant, '/v1/missions/m-src', {
        state: 'active',
        grants: { ...grants, acceptLowerTrust: false, maxCausalDepth: 2 },
      });
      expect(mission.status).toBe(200);
    }
    const trigger = (sourceId: string) => ({ missionId: 'm-src', type: 'webhook', source: { sourceId } });
    const missing = await putAs('tenant-a', '/v1/triggers/t-src', trigger('src-never-created'));
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({
      code: 'invalid_definition',
      errors: [{ pointer: '/source/sourceId', message: 'no source "src-never-created" exists in this tenant' }],
    });
    // Another tenant's source of that id is not this tenant's: no binding across tenants.
    expect((await putAs('tenant-b', '/v1/triggers/t-src', trigger(s))).status).toBe(422);
    expect((await putAs('tenant-a', '/v1/triggers/t-src', trigger(s))).status).toBe(200);
  });

  it('expectedRevision 0 on an existing source, or a stale n, is 409 revision_conflict with currentRevision', async () => {
    const s = id();
    await api.put(s, { scheme: 'unsigned' });
    for (const expectedRevision of [0, 2]) {
      const stale = await api.put(s, { expectedRevision, scheme: 'unsigned', toleranceSeconds: 9 });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'revision_conflict', currentRevision: 1 });
    }
  });

  it('422 invalid_definition lists every bad member with its pointer; the scheme cannot change', async () => {
    const bad = await api.put(id(), {
      scheme: 'hmac',
      toleranceSeconds: 0,
      rateLimit: { perSecond: 'fast' },
      schema: { required: ['type'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_definition');
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/rateLimit/perSecond',
      '/schema/required/0',
      '/scheme',
      '/toleranceSeconds',
    ]);
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    const changed = await api.put(s, { scheme: 'github-hmac-sha256' });
    expect(changed.status).toBe(422);
    expect(changed.body.errors).toEqual([
      { pointer: '/scheme', message: expect.stringContaining('scheme cannot change') },
    ]);
    expect((await api.put(id(), { expectedRevision: 'one', scheme: 'unsigned' })).body).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
    });
  });

  it('SEC-2 writes need sources:write and reads operator:read', async () => {
    const s = id();
    const reader = await t.token({ scope: 'operator:read' });
    expect((await api.put(s, { scheme: 'unsigned' }, reader)).body).toMatchObject({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
    });
    await api.put(s, { scheme: 'standard-webhooks' });
    expect((await api.addKey(s, {}, newKey(), reader)).status).toBe(403);
    expect((await api.get(s, await t.token({ scope: 'sources:write' }))).status).toBe(403);
    expect((await api.get(s, reader)).status).toBe(200);
  });

  it('WH-3 SEC-3 a generated key is shown once: never by GET, null on replay, never in events or stored answers', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    const key = newKey();
    const created = await api.addKey(s, {}, key);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      sourceId: s,
      keyId: expect.stringMatching(/^key-[0-9a-f]{16}$/),
      generation: 1,
      secret: expect.stringMatching(WHSEC),
      position: expect.any(Number),
    });
    const secret: string = created.body.secret;
    expect(Buffer.from(WHSEC.exec(secret)![1]!, 'base64').length).toBeGreaterThanOrEqual(24);
    const read = await api.get(s);
    expect(read.body.keys).toEqual([
      { keyId: created.body.keyId, generation: 1, retired: false, addedAt: expect.any(String), retiredAt: null },
    ]);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const replay = await api.addKey(s, {}, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...created.body, secret: null });
    const texts = await storedTexts(t);
    expect(texts.some((text) => text.includes(created.body.keyId))).toBe(true);
    expect(texts.filter((text) => text.includes(secret) || text.includes(secret.slice(6)))).toEqual([]);
    // Without REVEILLE_SECRET_KEY the row is plain (development only), and the lookup returns it.
    const row = await t.sql.query<{ ciphertext: string }>('SELECT ciphertext FROM source_secrets WHERE key_id = $1', [
      created.body.keyId,
    ]);
    expect(row.rows[0]?.ciphertext).toBe(`plain:${secret}`);
    expect((await api.registry().resolve(s))?.keys).toEqual([{ keyId: created.body.keyId, generation: 1, secret }]);
  });

  it('WH-2 a given secret is checked against the scheme and never echoed when refused', async () => {
    const sw = id();
    await api.put(sw, { scheme: 'standard-webhooks' });
    const short = `whsec_${Buffer.from('sixteen bytes!!!').toString('base64')}`;
    const refused = await api.addKey(sw, { keyId: 'k1', secret: short });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'invalid_definition',
      errors: [{ pointer: '/secret', message: expect.stringContaining('24 bytes') }],
    });
    expect(JSON.stringify(refused.body)).not.toContain(short.slice(6));
    const given = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect((await api.addKey(sw, { keyId: 'k1', secret: given })).body).toMatchObject({
      keyId: 'k1',
      generation: 1,
      secret: given,
    });
    const gh = id();
    await api.put(gh, { scheme: 'github-hmac-sha256' });
    expect((await api.addKey(gh, { secret: 'too-short' })).body).toMatchObject({
      status: 422,
      errors: [{ pointer: '/secret' }],
    });
    expect((await api.addKey(gh, {})).body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await api.addKey(gh, { secret: 42 })).body).toMatchObject({
      status: 400,
      errors: expect.arrayContaining([{ pointer: '/secret', message: 'secret must be a string' }]),
    });
  });

  it('WH-3 a key body with an unknown member (a misspelt keyId) is 422 invalid_definition naming it, and adds no key', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    for (const name of ['keyid', 'zzz', 'constructor', 'toString']) {
      const refused = await api.addKey(s, { [name]: 'k2' });
      expect({ name, status: refused.status, code: refused.body.code }).toEqual({
        name,
        status: 422,
        code: 'invalid_definition',
      });
      expect(refused.body.errors).toEqual([{ pointer: `/${name}`, message: `unknown member "${name}"` }]);
    }
    expect((await api.get(s)).body.keys).toEqual([]);
    expect((await api.addKey(s, { keyId: 'k2' })).status).toBe(201);
  });

  it('key ids are never reused; unsigned sources take no keys; an unknown source is 404', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    await api.addKey(s, { keyId: 'k1' });
    expect((await api.addKey(s, { keyId: 'k1' })).body).toMatchObject({ status: 409, code: 'key_exists' });
    const open = id();
    await api.put(open, { scheme: 'unsigned' });
    expect((await api.addKey(open, {})).body).toMatchObject({ status: 409, code: 'scheme_has_no_keys' });
    expect((await api.addKey(id(), {})).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await api.addKey(s, { keyId: 'bad id' })).body).toMatchObject({
      status: 400,
      errors: [{ pointer: '/keyId' }],
    });
  });

  it('WH-3 AD-2 retiring a key stops it at once; again is a no-op; an unknown key is 404', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    const k1 = (await api.addKey(s, { keyId: 'k1' })).body;
    const k2 = (await api.addKey(s, { keyId: 'k2' })).body;
    expect((await api.registry().resolve(s))?.keys.map((k) => k.keyId)).toEqual(['k1', 'k2']);
    const retired = await api.retire(s, 'k1');
    expect(retired.status).toBe(200);
    expect(retired.body).toEqual({
      sourceId: s,
      keyId: 'k1',
      generation: 1,
      retired: true,
      position: expect.any(Number),
    });
    expect(await api.registry().isKeyRetired('tenant-a', s, 'k1')).toBe(true);
    expect(await api.registry().isKeyRetired('tenant-a', s, 'k2')).toBe(false);
    expect(await api.registry().isKeyRetired('tenant-a', s, 'k9')).toBe(true);
    expect(await api.registry().resolve(s)).toMatchObject({
      tenant: 'tenant-a',
      sourceId: s,
      revision: 1,
      keys: [{ keyId: 'k2', generation: 2, secret: k2.secret }],
    });
    expect(
      (await t.sql.query('SELECT 1 FROM source_secrets WHERE source_id = $1 AND key_id = $2', [s, 'k1'])).rowCount,
    ).toBe(0);
    expect(k1.secret).not.toBe(k2.secret);
    const again = await api.retire(s, 'k1');
    expect(again.body).toEqual({ ...retired.body, position: retired.body.position });
    expect((await api.retire(s, 'k9')).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await api.get(s)).body.keys[0]).toMatchObject({
      keyId: 'k1',
      retired: true,
      retiredAt: expect.any(String),
    });
    expect((await api.addKey(s, { keyId: 'k3' })).body.generation).toBe(3);
  });

  it('concurrent key additions get distinct generations and each keeps its own secret', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((k) => api.addKey(s, { keyId: k })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.body.generation).sort()).toEqual([1, 2, 3, 4]);
    const resolved = await api.registry().resolve(s);
    expect(new Map(resolved!.keys.map((k) => [k.keyId, [k.generation, k.secret]]))).toEqual(
      new Map(answers.map((a) => [a.body.keyId, [a.body.generation, a.body.secret]])),
    );
  });

  it('concurrent additions of one key id: one wins and the stored secret is the winner’s', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    for (const [round, keyId] of ['r1', 'r2', 'r3', 'r4', 'r5'].entries()) {
      const answers = await Promise.all([api.addKey(s, { keyId }), api.addKey(s, { keyId })]);
      const winners = answers.filter((a) => a.status === 201);
      expect(winners).toHaveLength(1);
      expect(answers.find((a) => a.status !== 201)?.body.code).toMatch(/^key_(exists|in_flight)$/);
      expect((await api.registry().resolve(s))?.keys[round]).toEqual({
        keyId,
        generation: round + 1,
        secret: winners[0]!.body.secret,
      });
    }
  });

  it('SEC-2 another tenant sees a 404 identical to a missing source and cannot take the ingress id', async () => {
    const s = id();
    await api.put(s, { scheme: 'standard-webhooks' });
    await api.addKey(s, { keyId: 'k1' });
    const other = await t.token({ tenant: 'tenant-b' });
    const hidden = await api.get(s, other);
    const missing = await api.get(id(), other);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    const taken = await api.put(s, { expectedRevision: 0, scheme: 'unsigned' }, other);
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('source_id_unavailable');
    expect(JSON.stringify(taken.body)).not.toContain('tenant-a');
    expect((await api.addKey(s, {}, newKey(), other)).status).toBe(404);
    expect((await api.retire(s, 'k1', other)).status).toBe(404);
    expect(await api.registry().resolve(s)).toMatchObject({ tenant: 'tenant-a', keys: [{ keyId: 'k1' }] });
    expect(await api.registry().isKeyRetired('tenant-b', s, 'k1')).toBe(true);
    expect(await api.registry().resolve('never-created')).toBeNull();
  });
});

describe('Sources with REVEILLE_SECRET_KEY on postgres (decision 7, docs/architecture.md)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { REVEILLE_SECRET_KEY: 'test-deployment-key-0123456789abcdef' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('seals the secret at rest; the lookup opens it', async () => {
    const api = sourcesApi(t);
    await api.put('sealed', { scheme: 'github-hmac-sha256' });
    const { secret, keyId } = (await api.addKey('sealed', {})).body;
    const row = await t.sql.query<{ ciphertext: string }>(
      'SELECT ciphertext FROM source_secrets WHERE source_id = $1',
      ['sealed'],
    );
    expect(row.rows[0]?.ciphertext).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(row.rows[0]?.ciphertext).not.toContain(secret);
    expect((await api.registry().resolve('sealed'))?.keys).toEqual([{ keyId, generation: 1, secret }]);
  });
});

describe.each<StoreKind>(['pglite'])('Sources smoke on %s', (kind) => {
  it('creates a source, adds and retires a key, and resolves it by the global route', async () => {
    const t = await startTestApp(kind);
    try {
      const api = sourcesApi(t);
      expect((await api.put('gh', { expectedRevision: 0, scheme: 'standard-webhooks' })).status).toBe(200);
      const key = (await api.addKey('gh', { keyId: 'k1' })).body;
      expect((await api.registry().resolve('gh'))?.keys).toEqual([{ keyId: 'k1', generation: 1, secret: key.secret }]);
      expect((await api.retire('gh', 'k1')).status).toBe(200);
      expect(await api.registry().isKeyRetired('tenant-a', 'gh', 'k1')).toBe(true);
      expect((await api.registry().resolve('gh'))?.keys).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
