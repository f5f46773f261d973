import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { startTestApp, type TestApp } from '../support/app.js';
import { asJsonSchema, curlExamples, routesOf, templateOf } from '../support/openapi.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** api.md, Conventions: the only writes without an Idempotency-Key. */
const WITHOUT_KEY = ['POST /v1/ingress/{sourceId}', 'POST /v1/schedules/preview'];

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, Record<string, any>> };

const operations = (doc: Doc) =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ id: `${m.toUpperCase()} ${path}`, method: m, op: item[m] })),
    );

const resolve = (doc: Doc, node: any): any =>
  node?.$ref ? doc.components[node.$ref.split('/')[2]]![node.$ref.split('/')[3]] : node;

/** Schema nodes that say nothing at all (`{}`): a placeholder, not a documented shape. */
function placeholders(schema: unknown, at: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => placeholders(s, `${at}/${i}`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const says = ['type', '$ref', 'oneOf', 'anyOf', 'allOf', 'enum', 'description'].some((k) => k in node);
  const own = says ? [] : [at];
  const nested = ['properties', 'additionalProperties', 'items', 'oneOf', 'anyOf', 'allOf'].flatMap((key) => {
    const child = node[key];
    if (key === 'properties' && child && typeof child === 'object')
      return Object.entries(child).flatMap(([name, s]) => placeholders(s, `${at}/${name}`));
    return typeof child === 'object' ? placeholders(child, `${at}/${key}`) : [];
  });
  return [...own, ...nested];
}

describe('OP-4 SEC-3 SEC-4 the OpenAPI document covers every route of the app', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    doc = (await t.request({ method: 'GET', url: '/docs/openapi.json', token: null })).body;
  });
  afterAll(() => t?.close());

  it('finds the routes Fastify serves, the raw ingress route among them', () => {
    const routes = routesOf(t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false }));
    expect(routes).toEqual(expect.arrayContaining([{ method: 'POST', path: '/v1/ingress/{sourceId}' }]));
    expect(routes.filter((r) => r.path.startsWith('/v1/')).length).toBeGreaterThan(30);
  });

  it('documents every /v1 route with its method, and documents no route the app does not serve', () => {
    const served = routesOf(t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false }))
      .filter((r) => r.path.startsWith('/v1/') && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = operations(doc)
      .map((o) => o.id)
      .sort();
    expect(documented).toEqual(served);
  });

  it('SEC-3 every POST/PUT/DELETE but ingress and the schedule preview requires the Idempotency-Key header', () => {
    const writes = operations(doc).filter((o) => ['post', 'put', 'delete'].includes(o.method));
    const keyed = (op: any) =>
      (op.parameters ?? [])
        .map((p: any) => resolve(doc, p))
        .some((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key' && p.required === true);
    expect(writes.filter((o) => !WITHOUT_KEY.includes(o.id) && !keyed(o.op)).map((o) => o.id)).toEqual([]);
    expect(writes.filter((o) => WITHOUT_KEY.includes(o.id) && keyed(o.op)).map((o) => o.id)).toEqual([]);
    expect(writes.filter((o) => WITHOUT_KEY.includes(o.id)).map((o) => o.id)).toEqual(
      expect.arrayContaining(WITHOUT_KEY),
    );
  });

  it('every operation answers a 2xx with a schema, and every problem with the shared Problem schema', () => {
    const problem = doc.components.schemas!.Problem;
    expect(problem.required).toEqual(['type', 'title', 'status', 'code']);
    const faults: string[] = [];
    for (const { id, op } of operations(doc)) {
      const responses = Object.entries(op.responses as Record<string, any>);
      const success = responses.filter(([s, r]) => s.startsWith('2') && r.content?.['application/json']?.schema);
      if (success.length === 0) faults.push(`${id}: no 2xx with a schema`);
      for (const [status, response] of responses.filter(([s]) => Number(s) >= 400))
        if (response.content?.['application/problem+json']?.schema?.$ref !== '#/components/schemas/Problem')
          faults.push(`${id} ${status}: not a Problem`);
      const statuses = responses.map(([s]) => s);
      const expected = id.startsWith('POST /v1/ingress/') ? ['400', '401', '404', '503'] : ['400', '401', '403', '503'];
      for (const status of expected) if (!statuses.includes(status)) faults.push(`${id}: no ${status}`);
    }
    expect(faults).toEqual([]);
  });

  it('states the request and answer shapes without placeholder schemas', () => {
    const faults: string[] = operations(doc).flatMap(({ id, op }) => [
      ...placeholders(op.requestBody?.content?.['application/json']?.schema ?? { type: 'null' }, `${id} body`),
      ...Object.entries(op.responses as Record<string, any>).flatMap(([status, r]) =>
        placeholders(r.content?.['application/json']?.schema ?? { type: 'null' }, `${id} ${status}`),
      ),
    ]);
    for (const { id, op } of operations(doc))
      for (const parameter of (op.parameters ?? []).map((p: any) => resolve(doc, p)))
        if (!parameter.schema?.type) faults.push(`${id} ${parameter.in} ${parameter.name}: no schema type`);
    expect(faults).toEqual([]);
    const schemaOf = (path: string, method: string) =>
      resolve(doc, doc.paths[path]![method].requestBody.content['application/json'].schema);
    expect(Object.keys(schemaOf('/v1/triggers/{triggerId}', 'put').properties)).toEqual(
      expect.arrayContaining(['missionId', 'type', 'source', 'schedule', 'poll', 'dedupe', 'guard', 'delivery']),
    );
    expect(schemaOf('/v1/sources/{sourceId}', 'put').properties.scheme.enum).toEqual([
      'standard-webhooks',
      'github-hmac-sha256',
      'unsigned',
    ]);
    expect(schemaOf('/v1/missions/{missionId}', 'put').properties.grants.required).toContain('maxCausalDepth');
    const list = doc.paths['/v1/operator/occurrences']!.get.parameters.map((p: any) => p.name);
    expect(list).toEqual(expect.arrayContaining(['limit', 'cursor', 'triggerId', 'status', 'reason']));
  });

  describe("the README's request examples validate against the documented request schemas", () => {
    const examples = curlExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const validator = (schema: unknown) =>
      ajv.compile(asJsonSchema({ ...(schema as object), components: doc.components }) as object);

    it('finds the examples (Mission, Source, key and Trigger PUT/POST bodies)', () => {
      expect(examples.map((e) => `${e.method} ${e.path}`)).toEqual(
        expect.arrayContaining([
          'PUT /v1/missions/m-1',
          'PUT /v1/sources/gh',
          'POST /v1/sources/gh/keys',
          'PUT /v1/triggers/t-1',
        ]),
      );
    });

    it('each one is valid', () => {
      const faults = examples.flatMap((example) => {
        const template = templateOf(Object.keys(doc.paths), example.path);
        const op = template && doc.paths[template]![example.method.toLowerCase()];
        const schema = op?.requestBody?.content?.['application/json']?.schema;
        if (!schema) return [`${example.method} ${example.path}: no documented request body`];
        const validate = validator(resolve(doc, schema));
        return validate(example.body) ? [] : [`${example.method} ${example.path}: ${ajv.errorsText(validate.errors)}`];
      });
      expect(faults).toEqual([]);
    });

    it("the app's answers to them, and to reads of what they made, validate against the documented answers", async () => {
      const faults: string[] = [];
      let sent = 0;
      const check = async (method: string, url: string, body?: unknown) => {
        const key = method === 'GET' ? undefined : `openapi-${++sent}`;
        const answer = await t.request({ method, url, body, key });
        const template = templateOf(Object.keys(doc.paths), url.split('?')[0]!)!;
        const response = doc.paths[template]?.[method.toLowerCase()]?.responses[String(answer.status)];
        const schema =
          response?.content?.[
            'application/json' in (response?.content ?? {}) ? 'application/json' : 'application/problem+json'
          ]?.schema;
        if (answer.status === 204 && response) return answer;
        if (!schema) return void faults.push(`${method} ${url}: ${answer.status} is not documented`);
        if (answer.status >= 400 && !url.includes('no-such')) faults.push(`${method} ${url}: ${answer.status}`);
        const validate = validator(resolve(doc, schema));
        if (!validate(answer.body))
          faults.push(`${method} ${url} ${answer.status}: ${ajv.errorsText(validate.errors)}`);
        return answer;
      };
      for (const example of examples) await check(example.method, example.path, example.body);
      await check('PUT', '/v1/triggers/t-manual', { missionId: 'm-1', type: 'manual' });
      await check('POST', '/v1/triggers/t-manual/occurrences', { input: { n: 1 } });
      for (const url of [
        '/v1/missions/m-1',
        '/v1/sources/gh',
        '/v1/triggers/t-1',
        '/v1/triggers/t-1/revisions',
        '/v1/capabilities',
        '/v1/operator/triggers',
        '/v1/operator/occurrences?limit=5',
        '/v1/executions?status=pending',
        '/v1/operator/dead-letters',
        '/v1/operator/sources/gh',
        '/v1/operator/triggers/t-feed/poll',
        '/v1/audit/events?limit=5',
        '/v1/missions/no-such-mission',
      ])
        await check('GET', url);
      await check('POST', '/v1/schedules/preview', {
        schedule: { engine: 'cron@1', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
        count: 2,
      });
      const fired = await check('POST', '/v1/triggers/t-manual/occurrences?wait=decision', { input: { n: 2 } });
      const claim = await check('POST', '/v1/executions/claim-next', { consumerId: 'c-1', waitSeconds: 5 });
      const executionId = claim?.body?.executionId;
      if (executionId) {
        await check('POST', `/v1/executions/${executionId}/complete`, {
          fence: claim!.body.fence,
          outcome: 'succeeded',
          receipt: { ok: true },
        });
        await check('POST', `/v1/executions/${executionId}/settle`, { settlementId: 's-1' });
        await check('GET', `/v1/operator/executions/${executionId}`);
      } else faults.push('claim-next claimed nothing');
      await t.catchUp();
      await check('GET', `/v1/operator/occurrences/${fired?.body?.occurrenceId}`);
      await check('GET', '/v1/operator/triggers/t-manual');
      await check('POST', '/v1/triggers/t-manual/disable', { reason: 'docs' });
      await check('POST', '/v1/triggers/t-manual/enable', { reason: 'docs' });
      await check('PUT', '/v1/triggers/t-cron', {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'cron@1', expression: '0 3 * * *', timezone: 'Europe/Berlin' },
      });
      await check('GET', '/v1/triggers/t-cron/schedule/instants?count=2');
      const key = await check('POST', '/v1/sources/gh/keys', { keyId: 'k-docs' });
      if (key?.body?.keyId) await check('DELETE', '/v1/sources/gh/keys/k-docs');
      expect(faults).toEqual([]);
    });

    it('SEC-4 bodies Fastify refuses (too large, an unsupported media type) answer problems the document lists', async () => {
      const put = doc.paths['/v1/missions/{missionId}']!.put;
      const validate = validator(doc.components.schemas!.Problem);
      const answers = [
        await t.request({ method: 'PUT', url: '/v1/missions/m-big', body: 'x'.repeat(2 * 1024 * 1024), key: 'big' }),
        await t.request({
          method: 'PUT',
          url: '/v1/missions/m-text',
          body: 'state=active',
          key: 'text',
          headers: { 'content-type': 'application/xml' },
        }),
      ];
      expect(answers.map((a) => a.status)).toEqual([413, 400]);
      for (const answer of answers) {
        expect(put.responses[String(answer.status)].description).toContain(answer.body.code);
        expect(validate(answer.body)).toBe(true);
      }
    });

    it('and a body the domain refuses is invalid against the schema too (the schema is not a blank check)', () => {
      const validate = validator(
        resolve(doc, doc.paths['/v1/triggers/{triggerId}']!.put.requestBody.content['application/json'].schema),
      );
      expect(validate({ missionId: 'm-1', type: 'webhook', source: { sourceId: 'gh' } })).toBe(true);
      expect(validate({ missionId: 'm-1', type: 'sometimes' })).toBe(false);
      expect(validate({ missionId: 'm-1', type: 'webhook', overlap: 'allow', unknownMember: 1 })).toBe(false);
      expect(validate({ missionId: 'm-1', type: 'webhook', guard: { pointer: '/a', matches: '.*' } })).toBe(false);
      expect(validate({ missionId: 'm-1', type: 'webhook', guard: { all: [{ pointer: '/a', equals: 1 }] } })).toBe(
        true,
      );
    });
  });
});
