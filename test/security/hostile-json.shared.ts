import { databaseTextRejection } from '../../src/adapters/http/problems/database-rejection.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Well-formed JSON the service must refuse: each answered 500 before issue 20 (WH-1, SEC-4). */
export const HOSTILE_VALUES: ReadonlyArray<[string, string]> = [
  ['nested 10,000 deep', nested(10_000)],
  ['nested 100,000 deep', nested(100_000)],
  ['1e999', '1e999'],
  ['-1e999', '-1e999'],
  ['U+0000 in a string', '"a\\u0000b"'],
  ['an unpaired surrogate', '"x\\ud800"'],
  ['a lone low surrogate', '"\\udc00y"'],
];

export function hostileJsonSuite(kind: StoreKind): void {
  describe(`WH-1 SEC-4 hostile JSON on REST routes (${kind})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    const eventCount = async () =>
      Number((await t.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n);

    const routes: ReadonlyArray<[string, string, string, (value: string) => string]> = [
      ['mission grants', 'PUT', '/v1/missions/m-hostile', (v) => `{"state":"active","grants":${v}}`],
      [
        'trigger expectedRevision and reason',
        'PUT',
        '/v1/triggers/t-hostile',
        (v) => `{"expectedRevision":${v},"missionId":"m-hostile","type":"manual","reason":${v}}`,
      ],
      ['manual-fire input', 'POST', '/v1/triggers/t-hostile/occurrences', (v) => `{"input":{"n":${v}}}`],
      [
        'execution completion receipt',
        'POST',
        '/v1/executions/e-hostile/complete',
        (v) => `{"fence":1,"outcome":"succeeded","receipt":{"r":${v}}}`,
      ],
      ['a hostile member name', 'PUT', '/v1/missions/m-hostile', () => '{"state":"active","k\\u0000":1}'],
    ];

    it.each(routes)(
      '%s: every hostile value is 400 BAD_REQUEST, nothing stored',
      async (_name, method, url, bodyOf) => {
        const before = await eventCount();
        for (const [label, value] of HOSTILE_VALUES) {
          const response = await t.request({ method, url, key: newKey(), body: bodyOf(value) });
          expect({ label, status: response.status, code: response.body?.code }).toEqual({
            label,
            status: 400,
            code: 'BAD_REQUEST',
          });
          expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
          expect(Array.isArray(response.body.errors) && typeof response.body.errors[0].pointer).toBe('string');
        }
        expect(await eventCount()).toBe(before);
      },
    );

    it('SEC-4 api.md "JSON bodies, UTF-8": bytes that are not UTF-8 are 400 BAD_REQUEST, never stored as U+FFFD; valid UTF-8 is kept as sent', async () => {
      const grants =
        '{"maxExecutionsPerHour":1,"maxConcurrent":1,"resourceScopes":[],"classification":"internal","acceptLowerTrust":false,"maxCausalDepth":1}';
      const put = async (reason: Buffer) =>
        fetch(`${t.baseUrl}/v1/missions/m-utf8`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${await t.token()}`,
            'idempotency-key': newKey(),
            'content-type': 'application/json',
          },
          body: Buffer.concat([
            Buffer.from(`{"state":"active","grants":${grants},"reason":"`),
            reason,
            Buffer.from('"}'),
          ]),
        }).then(async (r) => ({
          status: r.status,
          type: r.headers.get('content-type'),
          body: (await r.json()) as any,
        }));
      const before = await eventCount();
      for (const [label, bytes] of [
        ['0xff 0xfe', [0xff, 0xfe]],
        ['a lone continuation byte', [0x61, 0x80]],
        ['a truncated sequence', [0xe2, 0x82]],
        ['an overlong "/"', [0xc0, 0xaf]],
        ['an encoded surrogate', [0xed, 0xa0, 0x80]],
      ] as const) {
        const response = await put(Buffer.from(bytes));
        expect({ label, status: response.status, code: response.body.code }).toEqual({
          label,
          status: 400,
          code: 'BAD_REQUEST',
        });
        expect(response.type).toMatch(/application\/problem\+json/);
        expect(response.body.errors).toEqual([{ pointer: '', message: expect.stringContaining('UTF-8') }]);
      }
      expect(await eventCount()).toBe(before);
      const text = 'é € 😀';
      expect((await put(Buffer.from(text, 'utf8'))).status).toBe(200);
      const { rows } = await t.sql.query<{ reason: string }>(
        `SELECT data->>'reason' AS reason FROM events WHERE type = 'MissionRevised' ORDER BY position DESC LIMIT 1`,
      );
      expect(rows[0]?.reason).toBe(text);
    });

    it('SEC-4 NUL and control characters in a path id are 400 before any query or idempotency record', async () => {
      const before = await eventCount();
      const ids = ['m%00x', '%00', 'a%01b', 'a%7Fb', 'a%0Ab'];
      for (const id of ids) {
        for (const [method, url, body] of [
          ['PUT', `/v1/missions/${id}`, { state: 'active' }],
          ['GET', `/v1/missions/${id}`, undefined],
          ['PUT', `/v1/triggers/${id}`, { expectedRevision: 0, missionId: 'm', type: 'manual' }],
          ['POST', `/v1/triggers/${id}/occurrences`, { input: {} }],
          ['POST', `/v1/executions/${id}/complete`, { fence: 1, outcome: 'succeeded' }],
        ] as const) {
          const response = await t.request({ method, url, key: newKey(), body });
          expect({ id, url, status: response.status, code: response.body?.code }).toEqual({
            id,
            url,
            status: 400,
            code: 'BAD_REQUEST',
          });
        }
      }
      const ingress = await fetch(`${t.baseUrl}/v1/ingress/s%00x`, { method: 'POST', body: '{}' });
      expect(ingress.status).toBe(404);
      expect(await eventCount()).toBe(before);
    });

    it('SEC-4 a token whose tenant or sub claim holds U+0000 or a control character is 401, never a query', async () => {
      const before = await eventCount();
      const forged = [
        { tenant: 'tenant-a\u0000' },
        { tenant: '\u0000' },
        { tenant: 'ten\nant' },
        { tenant: 'x\ud800' },
        { subject: 'svc\u0000' },
        { subject: 'svc\u001b[31m' },
      ];
      for (const claims of forged) {
        const token = await t.token(claims);
        for (const [method, url, body] of [
          ['PUT', '/v1/missions/m-claims', { state: 'active' }],
          ['GET', '/v1/missions/m-claims', undefined],
        ] as const) {
          const response = await t.request({ method, url, token, key: newKey(), body });
          expect({ claims, status: response.status, code: response.body?.code }).toEqual({
            claims,
            status: 401,
            code: 'UNAUTHENTICATED',
          });
        }
      }
      expect(await eventCount()).toBe(before);
    });

    it("SEC-4 backstop: the database's own refusals of NUL and lone surrogates map to a 400 problem", async () => {
      const refusals: unknown[] = [];
      for (const [sql, value] of [
        ['SELECT $1::text AS v', 'a\u0000b'],
        ['SELECT $1::jsonb AS v', '{"s":"a\\u0000b"}'],
        ['SELECT $1::jsonb AS v', '{"s":"x\\ud800"}'],
      ] as const) {
        const error = await t.sql.query(sql, [value]).then(
          () => null,
          (e: unknown) => e,
        );
        refusals.push(error);
        expect({ sql, value, refused: error !== null }).toEqual({ sql, value, refused: true });
        expect({ value, status: databaseTextRejection(error)?.status }).toEqual({ value, status: 400 });
      }
      expect(
        databaseTextRejection(Object.assign(new Error('invalid input syntax for type uuid'), { code: '22P02' })),
      ).toBeNull();
      expect(databaseTextRejection(new Error('boom'))).toBeNull();
    });

    it('SEC-3 a refused body leaves no idempotency record, so the same key with a sound body still works', async () => {
      const key = newKey();
      const bad = await t.request({
        method: 'PUT',
        url: '/v1/missions/m-retry',
        key,
        body: '{"state":"active","grants":1e999}',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].pointer).toBe('/grants');
      const good = await t.request({ method: 'PUT', url: '/v1/missions/m-retry', key, body: { state: 'paused' } });
      expect(good.status).toBeLessThan(500);
      expect(good.status).not.toBe(409);
    });
  });
}
