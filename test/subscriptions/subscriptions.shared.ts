import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import { InProcessWakeups } from '../../src/adapters/wakeup/in-process-wakeups.js';
import type { Wakeup } from '../../src/domain/execution/wakeup.js';
import { dropSchema } from '../support/databases.js';
import { PollUpstream } from '../support/poll-upstream.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { until, waitForFixture } from './subscriptions-fixture.js';

const ENV = { REVEILLE_DELIVERY_POLL_MS: '100' };
/** An embedded app took 28 s to start on the shared two-core machine. */
const STARTUP_MS = 180_000;
const TEST_MS = 120_000;

/** SU-1 with the background tasks running: the core path, wakeups and deadlines. */
export function subscriptionsSuite(kind: StoreKind): void {
  describe(`SU-1 wait-for subscriptions (${kind})`, () => {
    let t: TestApp;
    const f = waitForFixture(() => t, 'su');
    const wakeups: Wakeup[] = [];

    beforeAll(async () => {
      t = await startTestApp(kind, { env: ENV });
      t.app.get(InProcessWakeups).onNotified((wakeup) => wakeups.push(wakeup));
      await f.init(true);
    }, STARTUP_MS);
    afterAll(async () => {
      await t?.close();
    });

    it(
      'SU-1 a matching verified webhook resolves the subscription matched, the Occurrence is subscribed, no execution is admitted for it, and the waiting execution is woken',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const registered = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'callback-1',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'req-1' },
          deadline: await f.deadlineIn(60),
        });
        expect(registered.status).toBe(201);
        expect(registered.body).toMatchObject({ subscriptionId: 'callback-1', state: 'active' });
        const listed = await f.list(executionId, registered.body.position);
        expect(listed.body.items).toEqual([
          expect.objectContaining({
            subscriptionId: 'callback-1',
            state: 'active',
            target: { sourceId: f.setup.sourceId },
          }),
        ]);

        const other = await f.deliver('someone-else');
        const occurrenceId = await f.deliver('req-1');
        const matched = await until(async () => {
          const page = await f.list(executionId);
          return page.body.items[0]?.state === 'matched' ? page.body.items[0] : undefined;
        }, 'the match');
        expect(matched).toMatchObject({ matchedOccurrenceId: occurrenceId, resolvedAt: expect.any(String) });
        const detail = await until(async () => {
          const o = await f.occurrence(occurrenceId);
          return o.body.status === 'subscribed' ? o.body : undefined;
        }, 'the subscribed Occurrence');
        expect(detail).toMatchObject({ status: 'subscribed', executionId: null, reason: null });
        // The other delivery is admitted as usual; the subscribed one starts no execution.
        await until(async () => (await f.occurrence(other)).body.status === 'admitted', 'the other admission');
        // The executions read model folds apart from the occurrences one: wait for it to show the admission.
        const executions = await until(async () => {
          const page = await t.request({
            method: 'GET',
            url: `/v1/executions?triggerId=${f.setup.triggerId}`,
            token: await t.token({ tenant: 'tenant-a', scope: 'operator:read' }),
          });
          return page.body.items.length > 0 ? page : undefined;
        }, 'the execution row');
        expect(executions.body.items.map((e: { occurrenceId: string }) => e.occurrenceId)).toEqual([other]);
        // The waiting execution is told through the wakeup path, naming its subscription.
        const woken = await until(
          async () => wakeups.find((w) => w.executionId === executionId && w.subscriptionId === 'callback-1'),
          'the wakeup',
        );
        expect(woken).toMatchObject({ subscriptionState: 'matched', tenant: 'tenant-a' });
        // One-shot: a second matching event is admitted normally.
        const again = await f.deliver('req-1');
        await until(async () => (await f.occurrence(again)).body.status === 'admitted', 'the later admission');
      },
      TEST_MS,
    );

    it(
      'SU-1 OP-1 Trigger health shows a subscribed Occurrence as its last one and counts it',
      async () => {
        const health = async () =>
          (
            await t.request({
              method: 'GET',
              url: `/v1/operator/triggers/${f.setup.triggerId}`,
              token: await t.token({ tenant: 'tenant-a', scope: 'operator:read' }),
            })
          ).body;
        const before = (await health()).counts.subscribed as number;
        const { executionId, fence } = await f.claimed(true);
        expect(
          (
            await f.subscribe(executionId, {
              fence,
              subscriptionId: 'health-1',
              sourceId: f.setup.sourceId,
              match: { correlationKey: 'req-health' },
              deadline: await f.deadlineIn(60),
            })
          ).status,
        ).toBe(201);
        const occurrenceId = await f.deliver('req-health');
        const row = await until(async () => {
          const h = await health();
          return h.lastOccurrence?.occurrenceId === occurrenceId && h.lastOccurrence.status !== 'observed'
            ? h
            : undefined;
        }, 'the decision on the health row');
        expect(row.lastOccurrence).toMatchObject({ occurrenceId, status: 'subscribed', reason: null });
        expect(row.counts.subscribed).toBe(before + 1);
      },
      TEST_MS,
    );

    it(
      'SU-1 a subscription of an execution that completed matches nothing: the next matching event is admitted, not swallowed by an execution that will never run again',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const registered = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'outlived-1',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'req-outlived' },
          deadline: await f.deadlineIn(60),
        });
        expect(registered.status).toBe(201);
        const completed = await t.request({
          method: 'POST',
          url: `/v1/executions/${executionId}/complete`,
          key: newKey(),
          token: await t.token({ tenant: 'tenant-a' }),
          body: { fence, outcome: 'succeeded' },
        });
        expect(completed.status).toBe(200);

        const occurrenceId = await f.deliver('req-outlived');
        const decided = await until(async () => {
          const o = await f.occurrence(occurrenceId);
          return o.status === 200 && o.body.status !== 'observed' ? o.body : undefined;
        }, 'the decision');
        expect(decided).toMatchObject({ status: 'admitted', executionId: `x-${occurrenceId}` });
        const listed = await f.list(executionId);
        expect(listed.body.items).toEqual([expect.not.objectContaining({ state: 'matched' })]);
        expect(listed.body.items[0]).not.toHaveProperty('matchedOccurrenceId');
      },
      TEST_MS,
    );

    it(
      'SU-1 DD-2 hostile: a matched delivery sent again (a retry or a captured replay) is a duplicate: it matches no later subscription, resolves nothing twice and starts nothing',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const first = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'replayed-1',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'req-replay' },
          deadline: await f.deadlineIn(60),
        });
        expect(first.status).toBe(201);
        const occurrenceId = await f.deliver('req-replay');
        await until(async () => {
          const item = (await f.list(executionId)).body.items.find(
            (i: { subscriptionId: string }) => i.subscriptionId === 'replayed-1',
          );
          return item?.state === 'matched' ? item : undefined;
        }, 'the first match');
        await until(async () => (await f.occurrence(occurrenceId)).body.status === 'subscribed', 'subscribed');
        // A second subscription for the same key, registered after the match: only new evidence may resolve it.
        const second = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'replayed-2',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'req-replay' },
          deadline: await f.deadlineIn(60),
        });
        expect(second.status).toBe(201);
        const eventsBefore = await t.sql.query<{ n: string }>(`SELECT count(*) AS n FROM events`);

        const again = await f.resend(occurrenceId);
        expect(again.status).toBe(200);
        expect(again.body.occurrences[0]).toMatchObject({ occurrenceId, status: 'duplicate' });
        // A later delivery admitted proves admission has passed the resend (which appended nothing to wait for).
        const later = await f.deliver('unrelated');
        await until(async () => (await f.occurrence(later)).body.status === 'admitted', 'the later admission');

        const items = (await f.list(executionId)).body.items as Array<Record<string, unknown>>;
        expect(items.find((i) => i.subscriptionId === 'replayed-1')).toMatchObject({
          state: 'matched',
          matchedOccurrenceId: occurrenceId,
        });
        expect(items.find((i) => i.subscriptionId === 'replayed-2')).toMatchObject({ state: 'active' });
        expect((await f.occurrence(occurrenceId)).body).toMatchObject({ status: 'subscribed', executionId: null });
        // Nothing the resend could have written: the only new events are the later delivery's and its admission's.
        const { rows } = await t.sql.query<{ type: string; stream_id: string }>(
          `SELECT type, stream_id FROM events ORDER BY position OFFSET $1`,
          [Number(eventsBefore.rows[0]!.n)],
        );
        const ownStream = await t.sql.query(`SELECT 1 FROM events WHERE stream_id LIKE '%' || $1`, [occurrenceId]);
        expect(ownStream.rows.length).toBeGreaterThan(0); // the filter below names its stream
        expect(rows.filter((r) => r.stream_id.endsWith(occurrenceId))).toEqual([]);
        expect(rows.map((r) => r.type)).not.toContain('SubscriptionMatched');
      },
      TEST_MS,
    );

    it(
      'SU-1 payload fields match too; a subscription reaching its deadline resolves timed_out (database clock) and wakes the execution',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const short = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'short',
          triggerId: f.setup.triggerId,
          match: { fields: { '/repo': 'acme/api', '/n': 7 } },
          deadline: await f.deadlineIn(1.5),
        });
        expect(short.status).toBe(201);
        const fields = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'fields',
          triggerId: f.setup.triggerId,
          match: { fields: { '/repo': 'acme/web', '/n': 7 } },
          deadline: await f.deadlineIn(60),
        });
        expect(fields.status).toBe(201);
        const occurrenceId = await f.deliver('x', { repo: 'acme/web', n: 7 });
        const resolved = await until(async () => {
          const items = (await f.list(executionId)).body.items as Array<{ subscriptionId: string; state: string }>;
          // Both listed first: an empty list (the read model not folded yet) is not "none active"
          return items.length === 2 && items.every((i) => i.state !== 'active') ? items : undefined;
        }, 'both resolved');
        expect(resolved).toEqual([
          expect.objectContaining({ subscriptionId: 'short', state: 'timed_out', resolvedAt: expect.any(String) }),
          expect.objectContaining({ subscriptionId: 'fields', state: 'matched', matchedOccurrenceId: occurrenceId }),
        ]);
        await until(
          async () => wakeups.find((w) => w.subscriptionId === 'short' && w.subscriptionState === 'timed_out'),
          'the timeout wakeup',
        );
      },
      TEST_MS,
    );

    it(
      'SU-1 a poll item accepted after the registration is delivered to a subscription on its poll Trigger',
      async () => {
        const upstream = await PollUpstream.start();
        try {
          let items: unknown[] = [];
          upstream.on('/jobs', (_request, res) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ items }));
          });
          const token = await t.token({ tenant: 'tenant-a' });
          const put = await t.request({
            method: 'PUT',
            url: '/v1/triggers/t-su-poll',
            key: newKey(),
            token,
            body: {
              missionId: 'm-su',
              type: 'poll',
              poll: {
                connector: 'http-json@1',
                url: upstream.url('/jobs'),
                everySeconds: 1,
                itemsPointer: '/items',
                idPointer: '/id',
              },
            },
          });
          expect(put.status).toBe(200);
          const { executionId, fence } = await f.claimed(true);
          const registered = await f.subscribe(executionId, {
            fence,
            subscriptionId: 'job-done',
            triggerId: 't-su-poll',
            match: { fields: { '/job': 'j-7', '/status': 'done' } },
            deadline: await f.deadlineIn(60),
          });
          expect(registered.status).toBe(201);
          items = [
            { id: 'i-1', job: 'j-7', status: 'running' },
            { id: 'i-2', job: 'j-7', status: 'done' },
          ];
          const [item] = await until(async () => {
            const page = (await f.list(executionId)).body.items;
            return page[0]?.state === 'matched' ? page : undefined;
          }, 'the poll match');
          const matched = await f.occurrence(item.matchedOccurrenceId);
          expect(matched.body).toMatchObject({ kind: 'poll', triggerId: 't-su-poll', externalId: 'i-2' });
          await until(
            async () => (await f.occurrence(item.matchedOccurrenceId)).body.status === 'subscribed',
            'subscribed',
          );
          const listed = await t.request({
            method: 'GET',
            url: '/v1/operator/occurrences?triggerId=t-su-poll&status=subscribed',
            token: await t.token({ tenant: 'tenant-a', scope: 'operator:read' }),
          });
          expect(listed.body.items.map((o: { occurrenceId: string }) => o.occurrenceId)).toEqual([
            item.matchedOccurrenceId,
          ]);
        } finally {
          await upstream.close();
        }
      },
      TEST_MS,
    );

    it(
      'SU-1 hostile: a stale fence, an unclaimed execution, another tenant, and over-long or invalid match fields are refused',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const valid = {
          fence,
          subscriptionId: 'h-1',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'k' },
          deadline: await f.deadlineIn(60),
        };
        const stale = await f.subscribe(executionId, { ...valid, fence: fence + 1 });
        expect([stale.status, stale.body.code]).toEqual([409, 'fence_mismatch']);
        // A completed execution holds no claim any more.
        const done = await f.claimed(true);
        const completed = await t.request({
          method: 'POST',
          url: `/v1/executions/${done.executionId}/complete`,
          key: newKey(),
          token: f.setup.token,
          body: { fence: done.fence, outcome: 'succeeded' },
        });
        expect(completed.status).toBe(200);
        const unclaimed = await f.subscribe(done.executionId, { ...valid, fence: done.fence });
        expect([unclaimed.status, unclaimed.body.code]).toEqual([409, 'fence_mismatch']);
        const foreign = await f.subscribe(executionId, valid, await t.token({ tenant: 'tenant-b' }));
        expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
        const foreignList = await t.request({
          method: 'GET',
          url: `/v1/executions/${executionId}/subscriptions`,
          token: await t.token({ tenant: 'tenant-b' }),
        });
        expect(foreignList.status).toBe(404);
        const bad = async (body: Record<string, unknown>, pointer: string) => {
          const answer = await f.subscribe(executionId, { ...valid, ...body });
          expect([answer.status, answer.body.code]).toEqual([400, 'BAD_REQUEST']);
          expect(answer.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
        };
        await bad({ match: { correlationKey: 'k'.repeat(257) } }, '/match/correlationKey');
        await bad({ match: {} }, '/match');
        await bad({ match: { fields: { 'no-slash': 1 } } }, '/match/fields/no-slash');
        await bad({ match: { fields: { '/a': { nested: true } } } }, '/match/fields/~1a');
        await bad({ match: { fields: { '/a': 'v'.repeat(257) } } }, '/match/fields/~1a');
        await bad(
          { match: { fields: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`/f${i}`, i])) } },
          '/match/fields',
        );
        await bad({ match: { correlationKey: 'k', extra: 1 } }, '/match/extra');
        await bad({ triggerId: f.setup.triggerId }, '/triggerId');
        await bad({ deadline: '2020-01-01T00:00:00.000Z' }, '/deadline');
        await bad({ deadline: 'tomorrow-ish-please!!' }, '/deadline');
        await bad({ subscriptionId: 'x'.repeat(200) }, '/subscriptionId');
        const noSuchSource = await f.subscribe(executionId, { ...valid, sourceId: 's-none' });
        expect(noSuchSource.status).toBe(404);
        // Nothing was registered by any of them.
        expect((await f.list(executionId)).body.items).toEqual([]);
        // The same id twice with another match is a conflict; a retry with the same content changes nothing.
        expect((await f.subscribe(executionId, valid)).status).toBe(201);
        expect((await f.subscribe(executionId, valid)).status).toBe(201);
        const conflict = await f.subscribe(executionId, { ...valid, match: { correlationKey: 'other' } });
        expect([conflict.status, conflict.body.code]).toEqual([409, 'subscription_conflict']);
      },
      TEST_MS,
    );

    it(
      'SU-1 SEC-2 the subscriptions list is a list: operator:read reads it as executions:write does; another scope is 403',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const registered = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'scoped',
          sourceId: f.setup.sourceId,
          match: { fields: { '/type': 'callback' } },
          deadline: await f.deadlineIn(60),
        });
        expect(registered.status).toBe(201);
        // Read-your-writes: the list is a read model, which may not have folded the registration yet
        const listWith = async (scope: string) =>
          t.request({
            method: 'GET',
            url: `/v1/executions/${executionId}/subscriptions?minPosition=${registered.body.position}`,
            token: await t.token({ tenant: 'tenant-a', scope }),
          });
        for (const scope of ['operator:read', 'executions:write']) {
          const listed = await listWith(scope);
          expect([scope, listed.status]).toEqual([scope, 200]);
          expect(listed.body.items.map((item: { subscriptionId: string }) => item.subscriptionId)).toEqual(['scoped']);
        }
        const refused = await listWith('occurrences:write');
        expect([refused.status, refused.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
      },
      TEST_MS,
    );

    it(
      'SU-1 a null triggerId or sourceId is a wrong field type: 400 BAD_REQUEST naming it, never a 404 lookup',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const base = {
          fence,
          subscriptionId: 'null-target',
          match: { fields: { '/type': 'callback' } },
          deadline: await f.deadlineIn(60),
        };
        for (const [body, pointer] of [
          [{ ...base, sourceId: null }, '/sourceId'],
          [{ ...base, triggerId: null }, '/triggerId'],
          [{ ...base, triggerId: null, sourceId: f.setup.sourceId }, '/triggerId'],
        ] as const) {
          const answer = await f.subscribe(executionId, body);
          expect([answer.status, answer.body.code]).toEqual([400, 'BAD_REQUEST']);
          expect(answer.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
        }
        expect((await f.list(executionId)).body.items).toEqual([]);
      },
      TEST_MS,
    );

    it(
      'SU-1 the deadline is answered as recorded (UTC with milliseconds), and a calendar roll-over (T24:00) is refused',
      async () => {
        const { executionId, fence } = await f.claimed(true);
        const exact = await f.deadlineIn(120);
        const seconds = exact.replace(/\.\d{3}Z$/, 'Z');
        const valid = {
          fence,
          subscriptionId: 'precision',
          sourceId: f.setup.sourceId,
          match: { fields: { '/type': 'never-sent' } },
          deadline: seconds,
        };
        const registered = await f.subscribe(executionId, valid);
        expect(registered.status).toBe(201);
        const recorded = seconds.replace(/Z$/, '.000Z');
        expect(registered.body.deadline).toBe(recorded);
        // The same instant written with milliseconds is the same registration, not a conflict.
        expect((await f.subscribe(executionId, { ...valid, deadline: recorded })).status).toBe(201);
        const listed = await f.list(executionId, registered.body.position);
        expect(listed.body.items).toEqual([
          expect.objectContaining({ subscriptionId: 'precision', deadline: recorded }),
        ]);
        // `Date.parse` reads 24:00 as the next midnight; it is no RFC 3339 instant.
        const rolled = await f.subscribe(executionId, {
          ...valid,
          subscriptionId: 'rolled',
          deadline: `${exact.slice(0, 10)}T24:00:00.000Z`,
        });
        expect([rolled.status, rolled.body.code]).toEqual([400, 'BAD_REQUEST']);
        expect(rolled.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/deadline');
      },
      TEST_MS,
    );
  });
}

/** SU-1 driven by hand (no background tasks), so acceptance and matching can be interleaved at will. */
export function subscriptionOrderSuite(kind: StoreKind): void {
  describe(`SU-1 acceptance order decides (${kind})`, () => {
    let t: TestApp;
    const f = waitForFixture(() => t, 'so');

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      await f.init(false);
    }, STARTUP_MS);
    afterAll(async () => {
      await t?.close();
    });

    it(
      'SU-1 an event accepted before the subscription never matches it, even when its match is computed after the registration',
      async () => {
        const { executionId, fence } = await f.claimed(false);
        const early = await f.deliver('late-reg');
        const registered = await f.subscribe(executionId, {
          fence,
          subscriptionId: 'late',
          sourceId: f.setup.sourceId,
          match: { correlationKey: 'late-reg' },
          deadline: await f.deadlineIn(60),
        });
        expect(registered.status).toBe(201);
        await f.admit(); // admission decides the early event only now, after the registration
        await t.catchUp();
        expect((await f.occurrence(early)).body.status).toBe('admitted');
        expect((await f.list(executionId)).body.items[0]).toMatchObject({ subscriptionId: 'late', state: 'active' });
        // The next one, accepted after the registration, matches.
        const after = await f.deliver('late-reg');
        await f.admit();
        await t.catchUp();
        expect((await f.occurrence(after)).body.status).toBe('subscribed');
        expect((await f.list(executionId)).body.items[0]).toMatchObject({
          state: 'matched',
          matchedOccurrenceId: after,
        });
      },
      TEST_MS,
    );

    it(
      'SU-1 registrations racing matching events: the recorded log order decides each, and audit verify (replay and read-model rebuild) agrees',
      async () => {
        const claims: Array<{ executionId: string; fence: number }> = [];
        for (let i = 0; i < 8; i++) claims.push(await f.claimed(false));
        const pairs = await Promise.all(
          claims.map(async ({ executionId, fence }, i) => {
            const corr = `race-${i}`;
            const [registered, occurrenceId] = await Promise.all([
              f.deadlineIn(60).then((deadline) =>
                f.subscribe(executionId, {
                  fence,
                  subscriptionId: 'race',
                  sourceId: f.setup.sourceId,
                  match: { correlationKey: corr },
                  deadline,
                }),
              ),
              f.deliver(corr),
            ]);
            expect(registered.status).toBe(201);
            return { executionId, occurrenceId, registeredAt: registered.body.position as number };
          }),
        );
        await f.admit();
        await t.catchUp();
        for (const { executionId, occurrenceId, registeredAt } of pairs) {
          const before = await t.infra.store.isAtOrBefore(registeredAt, await f.observedPosition(occurrenceId));
          const status = (await f.occurrence(occurrenceId)).body.status;
          const [item] = (await f.list(executionId)).body.items;
          expect([status, item.state]).toEqual(before ? ['subscribed', 'matched'] : ['admitted', 'active']);
        }
        const report = await auditVerify(t.infra, {});
        expect(report.listed).toEqual([]);
        expect(report).toMatchObject({ ok: true, violations: 0 });
      },
      TEST_MS,
    );

    it(
      'SU-1 the list pages like every other list: a nextCursor only when an item follows, null on the page holding the last one',
      async () => {
        const { executionId, fence } = await f.claimed(false);
        for (const subscriptionId of ['page-1', 'page-2'])
          expect(
            (
              await f.subscribe(executionId, {
                fence,
                subscriptionId,
                sourceId: f.setup.sourceId,
                match: { correlationKey: subscriptionId },
                deadline: await f.deadlineIn(60),
              })
            ).status,
          ).toBe(201);
        await t.catchUp();
        const page = async (query: string) =>
          (
            await t.request({
              method: 'GET',
              url: `/v1/executions/${executionId}/subscriptions?${query}`,
              token: await t.token({ tenant: 'tenant-a' }),
            })
          ).body as { items: Array<{ subscriptionId: string }>; nextCursor: string | null };
        const first = await page('limit=1');
        expect(first.items.map((s) => s.subscriptionId)).toEqual(['page-1']);
        expect(first.nextCursor).toEqual(expect.any(String));
        const second = await page(`limit=1&cursor=${first.nextCursor}`);
        expect([second.items.map((s) => s.subscriptionId), second.nextCursor]).toEqual([['page-2'], null]);
        const whole = await page('limit=2');
        expect([whole.items.length, whole.nextCursor]).toEqual([2, null]);
      },
      TEST_MS,
    );
  });
}

/** SU-1 deadlines live in the log: a restarted app times out what the stopped one registered. */
export function subscriptionRestartSuite(kind: StoreKind): void {
  describe(`SU-1 deadlines across a restart (${kind})`, () => {
    it(
      'SU-1 a subscription registered before a restart is timed out by the next app on the same database',
      async () => {
        const database =
          kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : mkdtempSync(join(tmpdir(), 'rv-'));
        let t = await startTestApp(kind, { env: ENV, database });
        const f = waitForFixture(() => t, 'sr');
        try {
          await f.init(true);
          const { executionId, fence } = await f.claimed(true);
          const registered = await f.subscribe(executionId, {
            fence,
            subscriptionId: 'across',
            triggerId: f.setup.triggerId,
            match: { fields: { '/never': true } },
            deadline: await f.deadlineIn(2.5),
          });
          expect(registered.status).toBe(201);
          await t.close();
          t = await startTestApp(kind, { env: ENV, database });
          const [item] = await until(async () => {
            const items = (await f.list(executionId)).body.items;
            return items[0]?.state === 'timed_out' ? items : undefined;
          }, 'the timeout after the restart');
          expect(item).toMatchObject({ subscriptionId: 'across', resolvedAt: expect.any(String) });
        } finally {
          await t.close();
          if (kind === 'postgres') await dropSchema(database);
        }
      },
      2 * STARTUP_MS,
    );
  });
}
