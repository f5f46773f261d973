import { request as httpRequest } from 'node:http';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';

const mission = (overrides: Record<string, unknown> = {}) => ({
  state: 'active',
  grants: {
    maxExecutionsPerHour: 60,
    maxConcurrent: 2,
    resourceScopes: ['repo:acme/*'],
    classification: 'internal',
    acceptLowerTrust: false,
    maxCausalDepth: 4,
  },
  reason: 'test',
  ...overrides,
});

const expectProblem = (
  response: { status: number; headers: Record<string, unknown>; body: any },
  status: number,
  code: string,
) => {
  expect(response.status).toBe(status);
  expect(String(response.headers['content-type'])).toContain('application/problem+json');
  expect(response.body).toMatchObject({ status, code, title: expect.any(String), type: expect.any(String) });
  expect(JSON.stringify(response.body)).not.toMatch(/at .*\.(ts|js):\d+/); // no stack traces
};

/** node:http with a raw header list: fetch joins two copies of a header into one line, Node's parser keeps the first. */
const rawRequest = (
  t: TestApp,
  method: string,
  url: string,
  rawHeaders: string[],
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> =>
  new Promise((resolve, reject) => {
    // Given as a list, the headers are sent as they are: Node adds no Host of its own.
    const headers = ['host', new URL(t.baseUrl).host, ...rawHeaders];
    if (body !== undefined) headers.push('content-length', String(Buffer.byteLength(body)));
    const request = httpRequest(`${t.baseUrl}${url}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });

export function apiSecuritySuite(kind: StoreKind): void {
  describe(`SEC-1..4 service API security (${kind})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(kind);
    });
    afterAll(async () => {
      await t?.close();
    });

    describe('SEC-1 authentication', () => {
      it('answers 401 UNAUTHENTICATED without a token, with a malformed one, and with a rejected one', async () => {
        expectProblem(await t.request({ method: 'GET', url: '/v1/missions/m-1', token: null }), 401, 'UNAUTHENTICATED');
        expectProblem(
          await t.request({
            method: 'GET',
            url: '/v1/missions/m-1',
            token: null,
            headers: { authorization: 'Basic abc' },
          }),
          401,
          'UNAUTHENTICATED',
        );
        const expired = await t.token({ now: Math.floor(Date.now() / 1000) - 1000 });
        const response = await t.request({ method: 'GET', url: '/v1/missions/m-1', token: expired });
        expectProblem(response, 401, 'UNAUTHENTICATED');
        expect(JSON.stringify(response.body)).not.toContain(expired.split('.')[1]);
      });

      it('answers 401 UNAUTHENTICATED to a signed token whose iat is in the future (lifetime bypass)', async () => {
        const now = Math.floor(Date.now() / 1000);
        const ahead = await t.token({ claims: { iat: now + 86_400, nbf: now, exp: now + 86_400 + 300 } });
        const response = await t.request({ method: 'GET', url: '/v1/missions/m-1', token: ahead });
        expectProblem(response, 401, 'UNAUTHENTICATED');
        expect(response.body.detail).toMatch(/iat/);
      });

      it('SEC-1 two Authorization headers are 401 UNAUTHENTICATED in either order, never the identity of the first', async () => {
        const own = await t.token({ tenant: 'dup-a' });
        const other = await t.token({ tenant: 'dup-b' });
        const created = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-dup',
          body: mission(),
          key: newKey(),
          token: own,
        });
        expect(created.status).toBe(200);
        const single = await rawRequest(t, 'GET', '/v1/missions/m-dup', ['authorization', `Bearer ${own}`]);
        expect(single.status).toBe(200);
        for (const pair of [
          [own, other],
          [other, own],
          [own, own],
        ]) {
          const headers = pair.flatMap((token) => ['authorization', `Bearer ${token}`]);
          expectProblem(await rawRequest(t, 'GET', '/v1/missions/m-dup', headers), 401, 'UNAUTHENTICATED');
        }
        // A write is refused before anything runs.
        const write = await rawRequest(
          t,
          'PUT',
          '/v1/missions/m-dup',
          [
            'authorization',
            `Bearer ${own}`,
            'Authorization',
            `Bearer ${other}`,
            'idempotency-key',
            newKey(),
            'content-type',
            'application/json',
          ],
          JSON.stringify(mission({ state: 'paused' })),
        );
        expectProblem(write, 401, 'UNAUTHENTICATED');
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-dup', token: own })).body.state).toBe('active');
      });

      it('SEC-4 a REST body under two content-type headers is 400 BAD_REQUEST and executes nothing, as ingress refuses it', async () => {
        const token = await t.token();
        for (const second of ['text/plain', 'application/json']) {
          const response = await rawRequest(
            t,
            'PUT',
            '/v1/missions/m-two-types',
            [
              'authorization',
              `Bearer ${token}`,
              'idempotency-key',
              newKey(),
              'content-type',
              'application/json',
              'content-type',
              second,
            ],
            JSON.stringify(mission()),
          );
          expectProblem(response, 400, 'BAD_REQUEST');
          expect(response.body.errors).toEqual([{ pointer: '', message: expect.stringContaining('one content-type') }]);
        }
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-two-types' })).status).toBe(404);
      });

      it('leaves health public', async () => {
        expect((await t.request({ method: 'GET', url: '/health/live', token: null })).status).toBe(200);
        const ready = await t.request({ method: 'GET', url: '/health/ready', token: null });
        expect(ready.status).toBe(200);
        expect(ready.body.info.store).toMatchObject({ status: 'up', kind });
      });
    });

    describe('SEC-2 scopes and tenants', () => {
      it('answers 403 INSUFFICIENT_SCOPE when the token lacks the route scope', async () => {
        const token = await t.token({ scope: 'operator:read' });
        const response = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-scope',
          token,
          key: newKey(),
          body: mission(),
        });
        expectProblem(response, 403, 'INSUFFICIENT_SCOPE');
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-scope', token })).status).toBe(404);
      });

      it("hides another tenant's resource behind a 404 identical to a missing one, and never lets it be changed", async () => {
        const a = await t.token({ tenant: 'tenant-a' });
        const b = await t.token({ tenant: 'tenant-b' });
        expect(
          (await t.request({ method: 'PUT', url: '/v1/missions/shared-id', token: a, key: newKey(), body: mission() }))
            .status,
        ).toBe(200);
        const foreign = await t.request({ method: 'GET', url: '/v1/missions/shared-id', token: b });
        const missing = await t.request({ method: 'GET', url: '/v1/missions/never-created', token: b });
        expectProblem(foreign, 404, 'not_found');
        expect(foreign.body).toEqual(missing.body);
        // tenant-b's write lands in tenant-b's own namespace
        const written = await t.request({
          method: 'PUT',
          url: '/v1/missions/shared-id',
          token: b,
          key: newKey(),
          body: mission({ state: 'paused' }),
        });
        expect(written.body.revision).toBe(1);
        expect((await t.request({ method: 'GET', url: '/v1/missions/shared-id', token: a })).body).toMatchObject({
          state: 'active',
          revision: 1,
        });
        expect((await t.request({ method: 'GET', url: '/v1/missions/shared-id', token: b })).body).toMatchObject({
          state: 'paused',
          revision: 1,
        });
      });
    });

    describe('SEC-3 idempotency keys', () => {
      it('requires a key on commands and validates it', async () => {
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-k', body: mission() }),
          400,
          'idempotency_key_required',
        );
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-k', body: mission(), key: 'has space' }),
          400,
          'idempotency_key_invalid',
        );
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-k', body: mission(), key: 'x'.repeat(256) }),
          400,
          'idempotency_key_invalid',
        );
      });

      it('replays the original answer without executing again', async () => {
        const key = newKey();
        const first = await t.request({ method: 'PUT', url: '/v1/missions/m-replay', body: mission(), key });
        const again = await t.request({ method: 'PUT', url: '/v1/missions/m-replay', body: mission(), key });
        expect(first.status).toBe(200);
        expect(first.headers['idempotency-replayed']).toBeUndefined();
        expect(again.status).toBe(200);
        expect(again.body).toEqual(first.body);
        expect(again.headers['idempotency-replayed']).toBe('true');
        // a second execution would have produced revision 2 (the mission was revised unconditionally)
        const changed = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-replay',
          body: mission({ state: 'paused' }),
          key: newKey(),
        });
        expect(changed.body.revision).toBe(2);
      });

      it('SEC-3 a replay is byte for byte the original answer: same body text (member order included) and content type', async () => {
        const raw = async (method: string, url: string, body: unknown, key: string) => {
          const response = await fetch(`${t.baseUrl}${url}`, {
            method,
            body: JSON.stringify(body),
            headers: {
              authorization: `Bearer ${await t.token()}`,
              'idempotency-key': key,
              'content-type': 'application/json',
            },
          });
          return {
            status: response.status,
            type: response.headers.get('content-type'),
            replayed: response.headers.get('idempotency-replayed'),
            text: await response.text(),
          };
        };
        const cases: Array<[string, string, unknown]> = [
          ['PUT', '/v1/missions/m-bytes', mission()],
          ['PUT', '/v1/triggers/t-bytes', { missionId: 'm-bytes', type: 'manual' }],
          ['POST', '/v1/triggers/t-bytes/occurrences', { input: { zeta: 1, alpha: { b: 2, a: 1 } } }],
        ];
        for (const [method, url, body] of cases) {
          const key = newKey();
          const first = await raw(method, url, body, key);
          const again = await raw(method, url, body, key);
          expect(first.status).toBeLessThan(300);
          expect([url, again.replayed, first.replayed]).toEqual([url, 'true', null]);
          expect({ url, status: again.status, type: again.type, text: again.text }).toEqual({
            url,
            status: first.status,
            type: first.type,
            text: first.text,
          });
        }
      });

      it('answers 409 idempotency_key_conflict for another body or another resource, before disclosing anything', async () => {
        const key = newKey();
        await t.request({ method: 'PUT', url: '/v1/missions/m-c1', body: mission(), key });
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-c1', body: mission({ reason: 'different' }), key }),
          409,
          'idempotency_key_conflict',
        );
        const otherResource = await t.request({ method: 'PUT', url: '/v1/missions/m-c2', body: mission(), key });
        expectProblem(otherResource, 409, 'idempotency_key_conflict');
        expect(JSON.stringify(otherResource.body)).not.toContain('m-c1');
        const otherSubject = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-c1',
          body: mission(),
          key,
          token: await t.token({ subject: 'another-service' }),
        });
        expectProblem(otherSubject, 409, 'idempotency_key_conflict');
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-c2' })).status).toBe(404);
      });

      it('stores nothing for a request rejected by validation, so the corrected request can reuse the key', async () => {
        const key = newKey();
        expectProblem(
          await t.request({
            method: 'PUT',
            url: '/v1/missions/m-fix',
            body: { ...mission(), expectedRevision: 'one' },
            key,
          }),
          400,
          'BAD_REQUEST',
        );
        const invalid = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-fix',
          body: mission({ grants: { maxConcurrent: -1 } }),
          key,
        });
        expectProblem(invalid, 422, 'invalid_definition');
        expect(invalid.body.errors.length).toBeGreaterThan(0);
        const fixed = await t.request({ method: 'PUT', url: '/v1/missions/m-fix', body: mission(), key });
        expect(fixed.status).toBe(200);
      });

      it('keeps keys per tenant: two tenants using one key never see each other', async () => {
        const key = newKey();
        const a = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-tk',
          body: mission(),
          key,
          token: await t.token({ tenant: 'ta' }),
        });
        const b = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-tk',
          body: mission({ state: 'paused' }),
          key,
          token: await t.token({ tenant: 'tb' }),
        });
        expect(a.status).toBe(200);
        expect(b.status).toBe(200);
        expect(b.headers['idempotency-replayed']).toBeUndefined();
      });

      it('SEC-3 a repeat while the first use still executes waits for its answer a few seconds, then is 409 idempotency_key_in_flight with Retry-After', async () => {
        const key = newKey();
        expect((await t.request({ method: 'PUT', url: '/v1/missions/m-held', body: mission(), key })).status).toBe(200);
        // As a first use still running leaves it: in flight, held by this live process, under its lease.
        await t.sql.query(
          `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_body = NULL,
             response_text = NULL, lease_until = now() + interval '1 minute' WHERE key = $1`,
          [key],
        );
        const startedAt = Date.now();
        const repeat = await t.request({ method: 'PUT', url: '/v1/missions/m-held', body: mission(), key });
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(4_000);
        expectProblem(repeat, 409, 'idempotency_key_in_flight');
        expect(repeat.headers['retry-after']).toBe('1');
      }, 30_000);

      it('executes 20 concurrent first uses of one key once', async () => {
        const key = newKey();
        const responses = await Promise.all(
          Array.from({ length: 20 }, () =>
            t.request({ method: 'PUT', url: '/v1/missions/m-race', body: mission(), key }),
          ),
        );
        const ok = responses.filter((r) => r.status === 200);
        expect(ok.length).toBeGreaterThanOrEqual(1);
        responses.filter((r) => r.status !== 200).forEach((r) => expectProblem(r, 409, 'idempotency_key_in_flight'));
        ok.forEach((r) => expect(r.body).toEqual(ok[0]!.body));
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-race' })).body.revision).toBe(1);
      });
    });

    describe('SEC-3 idempotency keys claimed and answered together (one statement for concurrent requests)', () => {
      it('keeps 30 concurrent first uses of distinct keys apart: each executes once and replays its own answer', async () => {
        const uses = Array.from({ length: 30 }, (_, i) => ({ key: newKey(), url: `/v1/missions/m-many-${i}` }));
        const first = await Promise.all(
          uses.map(({ key, url }) => t.request({ method: 'PUT', url, body: mission(), key })),
        );
        first.forEach((r) => expect(r.status).toBe(200));
        const again = await Promise.all(
          uses.map(({ key, url }) => t.request({ method: 'PUT', url, body: mission(), key })),
        );
        again.forEach((r, i) => {
          expect(r.headers['idempotency-replayed']).toBe('true');
          expect(r.body).toEqual(first[i]!.body);
        });
      });

      it('keeps one key used concurrently by two tenants apart', async () => {
        const key = newKey();
        const [a, b] = await Promise.all(
          ['ta2', 'tb2'].map(async (tenant) =>
            t.request({
              method: 'PUT',
              url: '/v1/missions/m-tk2',
              body: mission(),
              key,
              token: await t.token({ tenant }),
            }),
          ),
        );
        expect([a!.status, b!.status]).toEqual([200, 200]);
        expect(a!.headers['idempotency-replayed']).toBeUndefined();
        expect(b!.headers['idempotency-replayed']).toBeUndefined();
      });
    });

    describe('SEC-4 problem details', () => {
      it('answers 400 for a body that is not JSON or not an object', async () => {
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-bad', body: '{not json', key: newKey() }),
          400,
          'BAD_REQUEST',
        );
        expectProblem(
          await t.request({ method: 'PUT', url: '/v1/missions/m-bad', body: '[1,2]', key: newKey() }),
          400,
          'BAD_REQUEST',
        );
      });

      it('lets ids of up to 128 characters reach their validators; a path segment past 1,024 is 414 uri_too_long, as a problem', async () => {
        const token = await t.token();
        const id128 = `m${'a'.repeat(127)}`;
        expectProblem(await t.request({ method: 'GET', url: `/v1/missions/${id128}`, token }), 404, 'not_found');
        const put = await t.request({
          method: 'PUT',
          url: `/v1/missions/${id128}`,
          token,
          key: newKey(),
          body: {
            state: 'active',
            grants: {
              maxExecutionsPerHour: 1,
              maxConcurrent: 1,
              resourceScopes: [],
              classification: 'internal',
              acceptLowerTrust: false,
              maxCausalDepth: 1,
            },
          },
        });
        expect(put.status).toBe(200);
        expect((await t.request({ method: 'GET', url: `/v1/missions/${id128}`, token })).status).toBe(200);
        expectProblem(await t.request({ method: 'GET', url: `/v1/missions/${id128}b`, token }), 400, 'BAD_REQUEST');
        const huge = await t.request({ method: 'GET', url: `/v1/missions/${'a'.repeat(1_025)}`, token });
        expectProblem(huge, 414, 'uri_too_long');
        expect(JSON.stringify(huge.body)).not.toContain('a'.repeat(200));
        expectProblem(await t.request({ method: 'GET', url: '/v1/missions/%E0%A4%A' }), 400, 'BAD_REQUEST');
      });

      it('answers 404 not_found for unknown routes', async () => {
        expectProblem(await t.request({ method: 'GET', url: '/v1/nothing-here' }), 404, 'not_found');
      });

      it('documents each route with its scope and problem codes in the OpenAPI document', async () => {
        const doc = await t.request({ method: 'GET', url: '/docs/openapi.json', token: null });
        expect(doc.status).toBe(200);
        const put = doc.body.paths['/v1/missions/{missionId}'].put;
        expect(put['x-required-scope']).toBe('missions:write');
        expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['401', '403', '409', '422', '503']));
        expect(put.responses['422'].description).toContain('invalid_definition');
        expect(doc.body.paths['/v1/triggers/{triggerId}/occurrences'].post['x-required-scope']).toBe(
          'occurrences:write',
        );
      });

      it('answers 409 revision_conflict with the current revision', async () => {
        await t.request({
          method: 'PUT',
          url: '/v1/missions/m-rev',
          body: mission({ expectedRevision: 0 }),
          key: newKey(),
        });
        const stale = await t.request({
          method: 'PUT',
          url: '/v1/missions/m-rev',
          body: mission({ expectedRevision: 0, state: 'paused' }),
          key: newKey(),
        });
        expectProblem(stale, 409, 'revision_conflict');
        expect(stale.body.currentRevision).toBe(1);
      });
    });

    describe('api.md Conventions, Validation: 400 BAD_REQUEST for the body and field types, 422 invalid_definition for definition content', () => {
      /** A raw body to a command route: POST for a manual fire, PUT for a definition. */
      const sendRaw = (url: string, body: string) =>
        t.request({ method: url.endsWith('occurrences') ? 'POST' : 'PUT', url, body, key: newKey() });

      const pointers = (response: { body: any }) =>
        (response.body.errors as { pointer: string }[]).map((error) => error.pointer);
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
      beforeAll(async () => {
        await put('/v1/missions/m-valid', mission());
        await put('/v1/triggers/t-valid', { missionId: 'm-valid', type: 'manual' });
        await put('/v1/sources/s-valid', { scheme: 'unsigned' });
      });

      it('A5: invalid Mission content (state, missing state or grants, grant values, unknown members) is 422 invalid_definition with pointers, as for Triggers and Sources', async () => {
        const { grants } = mission();
        const cases: ReadonlyArray<[unknown, string[]]> = [
          [{ state: 'sleeping', grants }, ['/state']],
          [{ state: 5, grants }, ['/state']],
          [{ grants }, ['/state']],
          [{ state: 'active' }, ['/grants']],
          [{ state: 'active', grants: [1] }, ['/grants']],
          [{ state: 'active', grants: { ...grants, maxConcurrent: -1 } }, ['/grants/maxConcurrent']],
          [{ state: 'active', grants, foo: 1 }, ['/foo']],
          [{ state: 'active', grants: { ...grants, foo: 1 } }, ['/grants/foo']],
        ];
        for (const [body, expected] of cases) {
          const response = await put('/v1/missions/m-a5', body);
          expect({ body, status: response.status, code: response.body.code }).toEqual({
            body,
            status: 422,
            code: 'invalid_definition',
          });
          expectProblem(response, 422, 'invalid_definition');
          expect({ body, pointers: pointers(response) }).toEqual({ body, pointers: expected });
        }
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-a5' })).status).toBe(404);
        expect((await put('/v1/missions/m-a5', { ...mission(), missionId: 'm-a5' })).status).toBe(200);
      });

      it('A6: a body that is not JSON, or empty, is 400 BAD_REQUEST with an errors list', async () => {
        for (const [url, body] of [
          ['/v1/missions/m-a6', '{"state":'],
          ['/v1/missions/m-a6', ''],
          ['/v1/triggers/t-a6', '{"missionId":"m-valid",'],
          ['/v1/triggers/t-valid/occurrences', 'nope'],
        ] as const) {
          const response = await sendRaw(url, body);
          expectProblem(response, 400, 'BAD_REQUEST');
          expect({ url, body, errors: response.body.errors }).toEqual({
            url,
            body,
            errors: [
              { pointer: '', message: body === '' ? expect.stringContaining('empty') : 'The body is not valid JSON.' },
            ],
          });
        }
      });

      it('A6: a body of any media type but JSON (a form, multipart, text, XML, +json, none, a malformed one) is 400 BAD_REQUEST and executes nothing, on every command route', async () => {
        expect((await put('/v1/triggers/t-media', { missionId: 'm-valid', type: 'manual' })).status).toBe(200);
        // node:http, not fetch: fetch labels a string body text/plain when no content type is given
        const mediaAnswers = async (url: string, body: string, contentType: string | undefined) => {
          const headers: Record<string, string> = {
            authorization: `Bearer ${await t.token()}`,
            'idempotency-key': newKey(),
            'content-length': String(Buffer.byteLength(body)),
            ...(contentType === undefined ? {} : { 'content-type': contentType }),
          };
          const method = url.startsWith('/v1/triggers/t-media/') || url.startsWith('/v1/executions') ? 'POST' : 'PUT';
          const { status, text, responseHeaders } = await new Promise<{
            status: number;
            text: string;
            responseHeaders: Record<string, unknown>;
          }>((resolve, reject) => {
            const request = httpRequest(`${t.baseUrl}${url}`, { method, headers }, (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              response.on('end', () =>
                resolve({ status: response.statusCode!, text, responseHeaders: response.headers }),
              );
            });
            request.on('error', reject);
            request.end(body);
          });
          return { status, headers: responseHeaders, body: JSON.parse(text) as any };
        };
        const boundary = 'reveille-boundary';
        const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="reason"\r\n\r\nviaform\r\n--${boundary}--\r\n`;
        const cases: [string, string, string | undefined][] = [
          ['/v1/triggers/t-media/disable', 'reason=viaform', 'application/x-www-form-urlencoded'],
          ['/v1/triggers/t-media/disable', 'reason=viaform', 'application/x-www-form-urlencoded; charset=utf-8'],
          ['/v1/triggers/t-media/disable', multipart, `multipart/form-data; boundary=${boundary}`],
          ['/v1/triggers/t-media/disable', '{"reason":"viatext"}', 'text/plain'],
          ['/v1/triggers/t-media/disable', '{"reason":"viatext"}', 'text/plain;charset=UTF-8'],
          ['/v1/triggers/t-media/disable', '{"reason":"none"}', undefined],
          ['/v1/triggers/t-media/enable', 'reason=form-again', 'application/x-www-form-urlencoded'],
          ['/v1/triggers/t-media/occurrences', 'input=x', 'application/x-www-form-urlencoded'],
          ['/v1/executions/claim-next', 'consumerId=formc&waitSeconds=0', 'application/x-www-form-urlencoded'],
          ['/v1/missions/m-media', JSON.stringify(mission()), 'application/x-www-form-urlencoded'],
          ['/v1/missions/m-media', JSON.stringify(mission()), 'application/merge-patch+json'],
          ['/v1/missions/m-media', JSON.stringify(mission()), 'application/xml'],
          ['/v1/missions/m-media', JSON.stringify(mission()), 'not a media type'],
        ];
        const answers = [];
        for (const [url, body, contentType] of cases) {
          const response = await mediaAnswers(url, body, contentType);
          answers.push({
            url,
            contentType,
            status: response.status,
            code: response.body.code,
            errors: response.body.errors,
          });
          if (response.status === 400) expectProblem(response, 400, 'BAD_REQUEST');
        }
        expect(answers).toEqual(
          cases.map(([url, , contentType]) => ({
            url,
            contentType,
            status: 400,
            code: 'BAD_REQUEST',
            errors: [{ pointer: '', message: expect.stringContaining('application/json') }],
          })),
        );
        const trigger = await t.request({ method: 'GET', url: '/v1/triggers/t-media' });
        expect(trigger.body).toMatchObject({ revision: 1, enabled: true });
        expect((await t.request({ method: 'GET', url: '/v1/missions/m-media' })).status).toBe(404);
        // JSON still works, with parameters, and so does a command without a body where it takes none
        const disabled = await mediaAnswers(
          '/v1/triggers/t-media/disable',
          '{"reason":"json"}',
          'application/json; charset=utf-8',
        );
        expect(disabled.status).toBe(200);
        const enabled = await t.request({ method: 'POST', url: '/v1/triggers/t-media/enable', key: newKey() });
        expect(enabled.status).toBe(200);
        // fetch labels an empty string body text/plain: an empty body is no body, whatever its label
        expect((await mediaAnswers('/v1/triggers/t-media/disable', '', 'text/plain;charset=UTF-8')).status).toBe(200);
        expect(
          (await mediaAnswers('/v1/triggers/t-media/enable', '', 'application/x-www-form-urlencoded')).status,
        ).toBe(200);
      });

      it('A6: the webhook ingress route keeps its own content-type rules: 400 malformed_request, not the REST answer', async () => {
        const answers = [];
        for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', 'not a media type']) {
          const response = await fetch(`${t.baseUrl}/v1/ingress/s-valid`, {
            method: 'POST',
            body: '{"type":"x"}',
            headers: { 'content-type': contentType, 'webhook-id': `msg_${newKey()}` },
          });
          answers.push({ contentType, status: response.status, code: ((await response.json()) as any).code });
        }
        expect(answers).toEqual(
          ['application/x-www-form-urlencoded', 'text/plain', 'not a media type'].map((contentType) => ({
            contentType,
            status: 400,
            code: 'malformed_request',
          })),
        );
      });

      it('A6: a JSON body declared in a charset other than UTF-8 (RFC 8259) is 400 BAD_REQUEST and executes nothing; charset=utf-8 in any spelling is JSON', async () => {
        // "Café" in latin1: the byte 0xE9, which a UTF-8 decoder would have turned into U+FFFD
        const latin1 = Buffer.from(JSON.stringify({ reason: 'Café' }), 'latin1');
        const send = async (triggerId: string, body: Buffer, contentType: string) => {
          const response = await fetch(`${t.baseUrl}/v1/triggers/${triggerId}/disable`, {
            method: 'POST',
            body,
            headers: {
              authorization: `Bearer ${await t.token()}`,
              'idempotency-key': newKey(),
              'content-type': contentType,
            },
          });
          return { status: response.status, body: (await response.json()) as any };
        };
        expect((await put('/v1/triggers/t-charset', { missionId: 'm-valid', type: 'manual' })).status).toBe(200);
        const answers = [];
        for (const charset of ['latin1', 'ISO-8859-1', '"iso-8859-1"', 'windows-1252', 'utf-16']) {
          const response = await send('t-charset', latin1, `application/json; charset=${charset}`);
          answers.push([charset, response.status, response.body.code, response.body.errors]);
        }
        expect(answers).toEqual(
          answers.map(([charset]) => [
            charset,
            400,
            'BAD_REQUEST',
            [{ pointer: '', message: expect.stringContaining('UTF-8') }],
          ]),
        );
        expect((await t.request({ method: 'GET', url: '/v1/triggers/t-charset' })).body).toMatchObject({
          revision: 1,
          enabled: true,
        });
        const utf8 = Buffer.from(JSON.stringify({ reason: 'Café' }), 'utf8');
        for (const [i, charset] of ['utf-8', 'UTF-8', '"utf-8"'].entries()) {
          const response = await send('t-charset', utf8, `application/json;charset=${charset}`);
          expect([charset, response.status]).toEqual([charset, 200]);
          // disable, enable, disable: each a new revision
          if (i < 2)
            expect(
              (await t.request({ method: 'POST', url: '/v1/triggers/t-charset/enable', key: newKey() })).status,
            ).toBe(200);
        }
      });

      it('A6: a valid JSON body with a "__proto__" member is refused 400 naming the member (prototype poisoning), not called invalid JSON', async () => {
        for (const [url, body, pointer] of [
          ['/v1/triggers/t-a6', '{"missionId":"m-valid","type":"manual","__proto__":{}}', '/__proto__'],
          ['/v1/missions/m-a6', `{"state":"active","grants":{"__proto__":{"x":1}}}`, '/grants/__proto__'],
          ['/v1/triggers/t-valid/occurrences', '{"input":{"a":[{"\\u005f_proto__":1}]}}', '/input/a/0/__proto__'],
          [
            '/v1/triggers/t-a6',
            '{"missionId":"m-valid","type":"manual","constructor":{"prototype":{}}}',
            '/constructor/prototype',
          ],
        ] as const) {
          const response = await sendRaw(url, body);
          expectProblem(response, 400, 'BAD_REQUEST');
          expect(response.body.detail).not.toMatch(/not valid JSON/);
          expect({ body, errors: response.body.errors }).toEqual({
            body,
            errors: [{ pointer, message: expect.stringContaining('prototype poisoning') }],
          });
        }
        expect((await t.request({ method: 'GET', url: '/v1/triggers/t-a6' })).status).toBe(404);
      });

      it('A6: JSON that is not an object is 400 at /body on every route, Missions as Triggers, Sources and keys', async () => {
        for (const [method, url] of [
          ['PUT', '/v1/missions/m-a6'],
          ['PUT', '/v1/triggers/t-a6'],
          ['PUT', '/v1/sources/s-a6'],
          ['POST', '/v1/sources/s-valid/keys'],
          ['POST', '/v1/triggers/t-valid/disable'],
          ['POST', '/v1/triggers/t-valid/occurrences'],
        ] as const) {
          for (const body of ['[1]', '1', '"text"', 'null', 'true']) {
            const response = await t.request({ method, url, body, key: newKey() });
            expect({ url, body, status: response.status, errors: response.body.errors }).toEqual({
              url,
              body,
              status: 400,
              errors: [{ pointer: '/body', message: 'the body must be a JSON object' }],
            });
          }
        }
      });

      it('A7: expectedRevision null is a wrong type, 400 at /expectedRevision on every definition route, never 409 "expected revision null"', async () => {
        for (const [method, url, body] of [
          ['PUT', '/v1/missions/m-valid', mission()],
          ['PUT', '/v1/missions/m-a7', mission()],
          ['PUT', '/v1/triggers/t-valid', { missionId: 'm-valid', type: 'manual' }],
          ['PUT', '/v1/triggers/t-a7', { missionId: 'm-valid', type: 'manual' }],
          ['PUT', '/v1/sources/s-valid', { scheme: 'unsigned' }],
          ['POST', '/v1/triggers/t-valid/disable', {}],
          ['POST', '/v1/triggers/t-valid/enable', {}],
          ['DELETE', '/v1/triggers/t-valid', { reason: 'gone' }],
        ] as const) {
          const response = await t.request({ method, url, key: newKey(), body: { ...body, expectedRevision: null } });
          expect({ method, url, status: response.status, code: response.body.code }).toEqual({
            method,
            url,
            status: 400,
            code: 'BAD_REQUEST',
          });
          expect(pointers(response)).toEqual(expect.arrayContaining(['/expectedRevision']));
          expect(new Set(pointers(response))).toEqual(new Set(['/expectedRevision']));
        }
        expect((await t.request({ method: 'GET', url: '/v1/triggers/t-valid' })).body.revision).toBe(1);
      });

      it('A9: members named like Object.prototype methods are unknown members (422), like "foo", on Triggers, Sources, grants and Missions', async () => {
        const { grants } = mission();
        for (const name of ['foo', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
          for (const [url, body, pointer] of [
            ['/v1/triggers/t-a9', { missionId: 'm-valid', type: 'manual', [name]: 1 }, `/${name}`],
            [
              '/v1/triggers/t-a9',
              {
                missionId: 'm-valid',
                type: 'webhook',
                source: { sourceId: 's-valid', eventTypes: ['push'], [name]: 1 },
              },
              `/source/${name}`,
            ],
            ['/v1/sources/s-a9', { scheme: 'unsigned', [name]: 1 }, `/${name}`],
            ['/v1/missions/m-a9', { state: 'active', grants: { ...grants, [name]: 1 } }, `/grants/${name}`],
            ['/v1/missions/m-a9', { state: 'active', grants, [name]: 1 }, `/${name}`],
          ] as const) {
            const response = await put(url, body);
            expect({ url, name, status: response.status, code: response.body.code }).toEqual({
              url,
              name,
              status: 422,
              code: 'invalid_definition',
            });
            expect(response.body.errors).toEqual([{ pointer, message: `unknown member "${name}"` }]);
          }
        }
        for (const url of ['/v1/triggers/t-a9', '/v1/sources/s-a9', '/v1/missions/m-a9'])
          expect((await t.request({ method: 'GET', url })).status).toBe(404);
      });

      it('A12 SEC-1: the Bearer scheme name is case-insensitive (RFC 7235 §2.1)', async () => {
        const token = await t.token();
        for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
          const response = await t.request({
            method: 'GET',
            url: '/v1/missions/m-valid',
            token: null,
            headers: { authorization: `${scheme} ${token}` },
          });
          expect({ scheme, status: response.status }).toEqual({ scheme, status: 200 });
        }
        const other = await t.request({
          method: 'GET',
          url: '/v1/missions/m-valid',
          token: null,
          headers: { authorization: `Basic ${token}` },
        });
        expectProblem(other, 401, 'UNAUTHENTICATED');
      });
    });
  });
}

/** Last: it stops the database connection under the running app. */
export function storeOutageSuite(kind: StoreKind): void {
  describe(`SEC-4 store outage (${kind})`, () => {
    it('answers 503 store_unavailable with Retry-After and mutates nothing', async () => {
      const t = await startTestApp(kind);
      try {
        await t.sql.close();
        const response = await t.request({ method: 'PUT', url: '/v1/missions/m-down', body: mission(), key: newKey() });
        expectProblem(response, 503, 'store_unavailable');
        expect(response.headers['retry-after']).toBeDefined();
        expect((await t.request({ method: 'GET', url: '/health/ready', token: null })).status).toBe(503);
      } finally {
        await t.close().catch(() => undefined);
      }
    });
  });
}
