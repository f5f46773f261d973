import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import type { PollLoop } from '../../src/adapters/poll/poll-loop.js';
import type { PollCompleted, PollFailed } from '../../src/domain/poll/poll-events.js';
import { MAX_POLL_ITEM_BYTES } from '../../src/domain/poll/poll-page.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { json, PollUpstream } from '../support/poll-upstream.js';
import { makeDue, occurrencesOf, pollBlock, pollEvents, pollLoop } from './poll-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-poll';
const MiB = 1_048_576;

export function pollingSuite(kind: StoreKind): void {
  describe(`PO-1..PO-4 polling a real upstream (${kind})`, () => {
    let t: TestApp;
    let upstream: PollUpstream;
    let loop: PollLoop;
    let n = 0;

    beforeAll(async () => {
      upstream = await PollUpstream.start();
      t = await startTestApp(kind, { autostart: false });
      const put = await t.request({
        method: 'PUT',
        url: `/v1/missions/${MISSION}`,
        key: newKey(),
        body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 10 }) },
      });
      expect(put.status).toBe(200);
      loop = pollLoop(t.infra.store, t.sql);
    });
    afterAll(async () => {
      await t?.close();
      await upstream?.close();
    });

    /** A poll Trigger on its own upstream path, known to the poll loop. */
    async function pollTrigger(extra: Record<string, unknown> = {}): Promise<{ triggerId: string; path: string }> {
      const triggerId = `t-poll-${++n}`;
      const path = `/${triggerId}`;
      // CP-1: the deployment claims wf.polling-initiation, so the API takes the poll block as it is
      const put = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId: MISSION, type: 'poll', poll: pollBlock(upstream.url(path), extra) },
      });
      expect(put.status).toBe(200);
      await t.catchUp();
      return { triggerId, path };
    }

    /** One poll of the Trigger now, whatever its interval. */
    async function pollNow(triggerId: string) {
      await makeDue(t.sql, TENANT, triggerId);
      return loop.pollTrigger({ tenant: TENANT, triggerId });
    }

    const operator = async (url: string) =>
      t.request({ method: 'GET', url, token: await t.token({ scope: 'operator:read' }) });
    /** OP-1 row and PO-1 poll view, after the read models folded. */
    const views = async (triggerId: string) => {
      await t.catchUp();
      const [row, poll] = await Promise.all([
        operator(`/v1/operator/triggers/${triggerId}`),
        operator(`/v1/operator/triggers/${triggerId}/poll`),
      ]);
      expect([row.status, poll.status]).toEqual([200, 200]);
      return { row: row.body, poll: poll.body };
    };

    const completed = async (triggerId: string) =>
      (await pollEvents(t.infra.store, TENANT, triggerId)).map((e) => ({ type: e.type, data: e.data })) as Array<
        PollCompleted | PollFailed
      >;

    it('PO-1 PO-2 PO-3 pages with cursors: each item once, in array order, the cursor moving from→to with every disposition', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.pages(path, {
        '': {
          items: [
            { id: 'a', v: 1 },
            { id: 'b', v: 2 },
          ],
          next: 'c1',
        },
        c1: {
          items: [
            { id: 'b', v: 2 },
            { id: 'c', v: 3 },
          ],
          next: 'c2',
        },
        c2: { items: [], next: null },
      });
      // new poll Triggers are due at once: the loop's own pass finds it
      expect(await loop.runOnce()).toBe(1);
      await pollNow(triggerId);
      await pollNow(triggerId);
      expect(upstream.requestsTo(path).map((r) => r.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
      const occurrences = await occurrencesOf(t.sql, TENANT, triggerId);
      // PO-2: b came again on the second page: a duplicate disposition, never a second Occurrence
      expect(occurrences).toEqual([
        { externalId: 'a', kind: 'poll', input: { id: 'a', v: 1 } },
        { externalId: 'b', kind: 'poll', input: { id: 'b', v: 2 } },
        { externalId: 'c', kind: 'poll', input: { id: 'c', v: 3 } },
      ]);
      const polls = await completed(triggerId);
      expect(
        polls.map((p) => p.type === 'PollCompleted' && [p.data.cursor, p.data.items.map((i) => i.disposition)]),
      ).toEqual([
        [{ from: null, to: 'c1' }, ['accepted', 'accepted']],
        [{ from: 'c1', to: 'c2' }, ['duplicate', 'accepted']],
        [{ from: 'c2', to: 'c2' }, []],
      ]);
      // PO-1: the cursor is never part of an Occurrence's input
      expect(JSON.stringify(occurrences)).not.toMatch(/c1|c2/);

      // PO-1: a cursor per binding: a revision polling another url does not hand it the old upstream's cursor
      const moved = `${path}-moved`;
      upstream.pages(moved, { '': { items: [{ id: 'a', v: 1 }], next: 'm1' } });
      const revised = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 1, missionId: MISSION, type: 'poll', poll: pollBlock(upstream.url(moved)) },
      });
      expect(revised.status).toBe(200);
      await pollNow(triggerId);
      expect(upstream.requestsTo(moved).map((r) => r.query.get('cursor'))).toEqual([null]);
      // same Trigger, same item id: still the one Occurrence (PO-2)
      expect(await occurrencesOf(t.sql, TENANT, triggerId)).toHaveLength(3);
      expect((await views(triggerId)).poll.cursor).toBe('m1');
    });

    it('OC-2 AD-1 PO-2 accepted poll items are admitted like any Occurrence, in page order, the item alone as input', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.pages(path, {
        '': {
          items: [
            { id: 'z9', n: 1 },
            { id: 'a1', n: 2 },
            { id: 'm5', n: 3 },
          ],
          next: 'after',
        },
      });
      await pollNow(triggerId);
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
      const list = await operator(`/v1/operator/occurrences?triggerId=${triggerId}`);
      expect(list.status).toBe(200);
      const items = list.body.items as Array<Record<string, any>>;
      expect(items.map((o) => [o.externalId, o.kind, o.status, o.auth.state])).toEqual(
        expect.arrayContaining([
          ['z9', 'poll', 'admitted', 'internal'],
          ['a1', 'poll', 'admitted', 'internal'],
          ['m5', 'poll', 'admitted', 'internal'],
        ]),
      );
      // acceptance order is the page's, not the order of the ids or of their stream names
      const { rows } = await t.sql.query<{ id: string }>(
        `SELECT data->>'externalId' AS id FROM events WHERE type = 'OccurrenceObserved' AND data->>'triggerId' = $1 ORDER BY position`,
        [triggerId],
      );
      expect(rows.map((r) => r.id)).toEqual(['z9', 'a1', 'm5']);
      const { rows: requests } = await t.sql.query<{ input: unknown }>(
        `SELECT data->'request'->'input' AS input FROM events WHERE type = 'OccurrenceAdmitted' AND data->'request'->>'triggerId' = $1
          ORDER BY data->'request'->'input'->>'n'`,
        [triggerId],
      );
      expect(requests.map((r) => r.input)).toEqual([
        { id: 'z9', n: 1 },
        { id: 'a1', n: 2 },
        { id: 'm5', n: 3 },
      ]);
    });

    it('PO-3 the accepted Occurrences and the PollCompleted are one append: each Occurrence is in the same transaction', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.pages(path, { '': { items: [{ id: 'x' }, { id: 'y' }], next: 'n1' } });
      await pollNow(triggerId);
      const { rows } = await t.sql.query<{ type: string; transaction_id: string }>(
        `SELECT type, transaction_id::text FROM events WHERE (type = 'OccurrenceObserved' AND data->>'triggerId' = $1)
            OR (type = 'PollCompleted' AND data->>'triggerId' = $1) ORDER BY position`,
        [triggerId],
      );
      expect(rows.map((r) => r.type)).toEqual(['OccurrenceObserved', 'OccurrenceObserved', 'PollCompleted']);
      expect(new Set(rows.map((r) => r.transaction_id)).size).toBe(1);
    });

    it('PO-4 an upstream 500, a timeout, a non-JSON body and a 10 MiB answer are each a PollFailed: nothing starts, the cursor stays', async () => {
      const { triggerId, path } = await pollTrigger();
      let mode = 'page';
      upstream.on(path, (request, res) => {
        if (mode === 'page') return json(res, { items: [{ id: `i-${request.query.get('cursor') ?? 0}` }], next: 'c1' });
        if (mode === '500') return json(res, { error: 'boom' }, 500);
        if (mode === 'slow') return; // never answers: the 1 s timeout
        if (mode === 'html') return void res.end('<html>oops</html>');
        res.setHeader('content-type', 'application/json');
        res.write('{"items":[],"pad":"');
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const push = (): void => {
          while (sent < 10 * MiB && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', push);
          }
          if (!res.destroyed) res.end('"}');
        };
        push();
      });
      await pollNow(triggerId);
      const failures: string[] = [];
      for (mode of ['500', 'slow', 'html', 'huge']) {
        const recorded = await pollNow(triggerId);
        expect(recorded?.events.map((e) => e.type)).toEqual(['PollFailed']);
        const failed = recorded!.events[0] as PollFailed;
        expect(failed.data.cursor).toBe('c1');
        failures.push(failed.data.failure.kind);
      }
      expect(failures).toEqual(['http_status', 'timeout', 'not_json', 'too_large']);
      const failing = await views(triggerId);
      expect(failing.row).toMatchObject({ health: 'failing', type: 'poll' });
      expect(failing.poll).toEqual({
        triggerId,
        cursor: 'c1',
        lastPollAt: expect.any(String),
        lastResult: 'failed',
        consecutiveFailures: 4,
        lastError: { kind: 'too_large', detail: expect.stringContaining('maxResponseBytes') },
        quarantined: [],
        secretSetAt: null,
      });
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['i-0']);
      mode = 'page';
      const after = await pollNow(triggerId);
      // the page after the failures is still the one after c1: nothing was skipped
      expect(upstream.requestsTo(path).at(-1)!.query.get('cursor')).toBe('c1');
      expect(after?.state).toMatchObject({ consecutiveFailures: 0, cursor: 'c1', lastResult: 'ok' });
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['i-0', 'i-c1']);
      const recovered = await views(triggerId);
      expect(recovered.row.health).toBe('ok');
      expect(recovered.poll).toMatchObject({ lastResult: 'ok', consecutiveFailures: 0 });
      expect(recovered.poll).not.toHaveProperty('lastError');
    });

    it('OP-1 one or two failed polls in a row are not yet failing', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.on(path, (_, res) => json(res, {}, 500));
      await pollNow(triggerId);
      await pollNow(triggerId);
      const { row, poll } = await views(triggerId);
      expect(poll.consecutiveFailures).toBe(2);
      expect(row.health).toBe('ok');
      expect(Date.parse(row.nextFireAt)).toBeGreaterThan(Date.parse(poll.lastPollAt));
    });

    it('PO-4 after a failure the next poll backs off: it is due later than the interval', async () => {
      const { triggerId, path } = await pollTrigger({ everySeconds: 2 });
      upstream.on(path, (_, res) => json(res, {}, 503));
      await pollNow(triggerId);
      await pollNow(triggerId);
      const { rows } = await t.sql.query<{ wait_ms: string }>(
        `SELECT EXTRACT(EPOCH FROM next_poll_at - claimed_at) * 1000 AS wait_ms FROM poll_due WHERE tenant = $1 AND trigger_id = $2`,
        [TENANT, triggerId],
      );
      // two failures in a row: 2 s × 2²
      expect(Number(rows[0]!.wait_ms)).toBe(8000);
      // a revision that keeps the interval (another timeout) keeps the backoff when the loop plans it again
      const put = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: {
          expectedRevision: 1,
          missionId: MISSION,
          type: 'poll',
          poll: pollBlock(upstream.url(path), { everySeconds: 2, timeoutSeconds: 2 }),
        },
      });
      expect(put.status).toBe(200);
      await t.catchUp();
      await loop.runOnce();
      const again = await t.sql.query<{ wait_ms: string; due_revision: number }>(
        `SELECT EXTRACT(EPOCH FROM next_poll_at - claimed_at) * 1000 AS wait_ms, due_revision FROM poll_due WHERE tenant = $1 AND trigger_id = $2`,
        [TENANT, triggerId],
      );
      expect(again.rows[0]).toMatchObject({ wait_ms: expect.anything(), due_revision: 2 });
      expect(Number(again.rows[0]!.wait_ms)).toBe(8000);
      expect(upstream.requestsTo(path)).toHaveLength(2);
    });

    it('PO-4 PO-1 a revision to another url is a new binding: none of the old failures or backoff, due at once (audit F #10)', async () => {
      const { triggerId, path } = await pollTrigger({ everySeconds: 60 });
      upstream.on(path, (_, res) => json(res, {}, 404));
      for (let i = 0; i < 4; i++) await pollNow(triggerId);
      expect((await views(triggerId)).poll.consecutiveFailures).toBe(4);
      let revision = 1;
      const repoint = async (to: string) => {
        const put = await t.request({
          method: 'PUT',
          url: `/v1/triggers/${triggerId}`,
          key: newKey(),
          body: {
            expectedRevision: revision++,
            missionId: MISSION,
            type: 'poll',
            poll: pollBlock(upstream.url(to), { everySeconds: 60 }),
          },
        });
        expect(put.status).toBe(200);
        await t.catchUp();
      };
      // another broken url: polled at once (the old binding's backoff was 16 minutes), its failures counted afresh
      const broken = `${path}-broken`;
      upstream.on(broken, (_, res) => json(res, {}, 500));
      await repoint(broken);
      expect((await views(triggerId)).poll.consecutiveFailures).toBe(0);
      await loop.runOnce();
      expect(upstream.requestsTo(broken)).toHaveLength(1);
      const failedOnce = await views(triggerId);
      expect(failedOnce.poll).toMatchObject({ lastResult: 'failed', consecutiveFailures: 1 });
      // the fixed url: polled at once again, though the broken one backs off for 2 minutes
      const fixed = `${path}-fixed`;
      upstream.pages(fixed, { '': { items: [{ id: 'f1' }], next: 'f' } });
      await repoint(fixed);
      await loop.runOnce();
      expect(upstream.requestsTo(fixed)).toHaveLength(1);
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['f1']);
      const fixedUp = await views(triggerId);
      expect(fixedUp.poll).toMatchObject({ lastResult: 'ok', consecutiveFailures: 0, cursor: 'f' });
      expect(fixedUp.row.health).toBe('ok');
      // and from then on every 60 s, the interval without backoff
      expect(Date.parse(fixedUp.row.nextFireAt) - Date.parse(fixedUp.poll.lastPollAt)).toBeLessThanOrEqual(60_000);
      // a revision that keeps the url is no new binding: no poll before the interval
      await repoint(fixed);
      await loop.runOnce();
      expect(upstream.requestsTo(fixed)).toHaveLength(1);
    });

    it('PO-1 api.md poll block: a revision that shortens everySeconds applies from the last poll, not after the old interval', async () => {
      const { triggerId, path } = await pollTrigger({ everySeconds: 3600 });
      upstream.pages(path, { '': { items: [] } });
      await pollNow(triggerId);
      expect(upstream.requestsTo(path)).toHaveLength(1);
      /** Moves the last claim (and the due time it set) back, as if that much time had passed. */
      const elapse = (seconds: number) =>
        t.sql.query(
          `UPDATE poll_due SET claimed_at = claimed_at - $3 * interval '1 second', next_poll_at = next_poll_at - $3 * interval '1 second'
            WHERE tenant = $1 AND trigger_id = $2`,
          [TENANT, triggerId, seconds],
        );
      const revise = async (expectedRevision: number, everySeconds: number, timeoutSeconds = 1) => {
        const put = await t.request({
          method: 'PUT',
          url: `/v1/triggers/${triggerId}`,
          key: newKey(),
          body: {
            expectedRevision,
            missionId: MISSION,
            type: 'poll',
            poll: pollBlock(upstream.url(path), { everySeconds, timeoutSeconds }),
          },
        });
        expect([put.status, put.body]).toEqual([200, expect.objectContaining({ revision: expectedRevision + 1 })]);
        await t.catchUp();
      };
      // another timeout, the same interval: nothing is due before the hour is up
      await revise(1, 3600, 2);
      await elapse(5);
      await loop.runOnce();
      expect(upstream.requestsTo(path)).toHaveLength(1);
      // every 2 s now: 5 s after the last poll it is due, not 59 minutes later
      await revise(2, 2);
      await loop.runOnce();
      expect(upstream.requestsTo(path)).toHaveLength(2);
      // and then every 2 s from that poll, no sooner
      await loop.runOnce();
      expect(upstream.requestsTo(path)).toHaveLength(2);
      const after = await views(triggerId);
      expect(Date.parse(after.row.nextFireAt) - Date.parse(after.poll.lastPollAt)).toBeLessThanOrEqual(2000);
      expect(Date.parse(after.row.nextFireAt)).toBeGreaterThan(Date.parse(after.poll.lastPollAt));
    });

    it('PO-4 quarantine: an item without an id or failing the schema is recorded as quarantined and the poll goes on', async () => {
      const { triggerId, path } = await pollTrigger({ schema: { required: ['/kind'] } });
      upstream.pages(path, {
        '': { items: [{ id: 'q1', kind: 'k' }, { kind: 'k' }, { id: 'q3' }, { id: 'q4', kind: 'k' }], next: 'qc' },
      });
      const recorded = await pollNow(triggerId);
      const event = recorded!.events[0] as PollCompleted;
      expect(event.data.items).toEqual([
        { index: 0, itemId: 'q1', disposition: 'accepted', occurrenceId: expect.any(String) },
        { index: 1, itemId: null, disposition: 'quarantined', reason: 'the item has no id at /id' },
        { index: 2, itemId: 'q3', disposition: 'quarantined', reason: 'the item lacks required members: /kind' },
        { index: 3, itemId: 'q4', disposition: 'accepted', occurrenceId: expect.any(String) },
      ]);
      expect(event.data.cursor).toEqual({ from: null, to: 'qc' });
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['q1', 'q4']);
      const { row, poll } = await views(triggerId);
      expect(row.health).toBe('ok');
      expect(poll).toMatchObject({ cursor: 'qc', lastResult: 'ok' });
      expect(poll.quarantined).toEqual([
        { index: 1, reason: 'the item has no id at /id', at: expect.any(String) },
        { itemId: 'q3', index: 2, reason: 'the item lacks required members: /kind', at: expect.any(String) },
      ]);
    });

    /** Each PollCompleted's dispositions, in stream order. */
    const dispositions = async (triggerId: string) =>
      (await completed(triggerId)).map((p) =>
        p.type === 'PollCompleted' ? p.data.items.map((i) => i.disposition) : [],
      );

    it('OC-4 PO-2 an item seen again with another payload is a payload_conflict, as a webhook redelivery is: recorded on its Occurrence, nothing starts', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.pages(path, {
        '': {
          items: [
            { id: 'p1', v: 1 },
            { id: 'p2', v: 1 },
          ],
          next: 'c1',
        },
        // p1 unchanged; p2 changed since; p3 new, then changed within the page
        c1: {
          items: [
            { v: 1, id: 'p1' },
            { id: 'p2', v: 2 },
            { id: 'p3', v: 1 },
            { id: 'p3', v: 2 },
          ],
          next: 'c2',
        },
        // no next cursor: polled again as it is
        c2: {
          items: [
            { id: 'p2', v: 2 },
            { id: 'p2', v: 3 },
          ],
        },
      });
      for (let i = 0; i < 4; i++) await pollNow(triggerId);
      expect(await dispositions(triggerId)).toEqual([
        ['accepted', 'accepted'],
        ['duplicate', 'payload_conflict', 'accepted', 'payload_conflict'],
        ['payload_conflict', 'payload_conflict'],
        ['payload_conflict', 'payload_conflict'],
      ]);
      // OC-4: the first accepted payload is the Occurrence's; a conflict is never a second Occurrence
      expect(await occurrencesOf(t.sql, TENANT, triggerId)).toEqual([
        { externalId: 'p1', kind: 'poll', input: { id: 'p1', v: 1 } },
        { externalId: 'p2', kind: 'poll', input: { id: 'p2', v: 1 } },
        { externalId: 'p3', kind: 'poll', input: { id: 'p3', v: 1 } },
      ]);
      const ids = Object.fromEntries(
        (await completed(triggerId))
          .flatMap((p) => (p.type === 'PollCompleted' ? p.data.items : []))
          .map((i) => [i.itemId, 'occurrenceId' in i ? i.occurrenceId : null]),
      ) as Record<string, string>;
      // recorded on the Occurrence as a webhook conflict is, once per distinct payload (p2: v 2 and v 3)
      const { rows: conflicts } = await t.sql.query<{ occurrence_id: string; n: string }>(
        `SELECT data->>'occurrenceId' AS occurrence_id, count(*) AS n FROM events
          WHERE type = 'DeliveryConflictRecorded' AND data->>'occurrenceId' = ANY($1::text[]) GROUP BY 1`,
        [[ids.p1, ids.p2, ids.p3]],
      );
      expect(Object.fromEntries(conflicts.map((r) => [r.occurrence_id, Number(r.n)]))).toEqual({
        [ids.p2!]: 2,
        [ids.p3!]: 1,
      });
      // nothing starts for a conflict: one admission per Occurrence, with the first payload
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const { rows: admitted } = await t.sql.query<{ input: { id: string; v: number } }>(
        `SELECT data->'request'->'input' AS input FROM events WHERE type = 'OccurrenceAdmitted' AND data->'request'->>'triggerId' = $1`,
        [triggerId],
      );
      expect(admitted.map((r) => r.input).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'p1', v: 1 },
        { id: 'p2', v: 1 },
        { id: 'p3', v: 1 },
      ]);
      // the operator's Occurrence view counts the conflicts; the health row counts p1's repeat alone as a duplicate
      await t.catchUp();
      const p2 = await operator(`/v1/operator/occurrences/${ids.p2}`);
      const p3 = await operator(`/v1/operator/occurrences/${ids.p3}`);
      expect([p2.status, p2.body.conflicts, p3.body.conflicts]).toEqual([200, 2, 1]);
      expect((await views(triggerId)).row.counts.duplicate).toBe(1);
    });

    it('OP-1 PO-2 poll duplicates are counted in the health row as webhook redeliveries are, on both Trigger routes', async () => {
      const { triggerId, path } = await pollTrigger();
      upstream.pages(path, { '': { items: [{ id: 'r1' }, { id: 'r2' }, { id: 'r1' }] } });
      for (let i = 0; i < 3; i++) await pollNow(triggerId);
      expect(await dispositions(triggerId)).toEqual([
        ['accepted', 'accepted', 'duplicate'],
        ['duplicate', 'duplicate', 'duplicate'],
        ['duplicate', 'duplicate', 'duplicate'],
      ]);
      const { row } = await views(triggerId);
      expect(row.counts).toMatchObject({ observed: 2, duplicate: 7 });
      const list = await operator('/v1/operator/triggers?limit=500');
      const listed = (list.body.items as Array<{ triggerId: string; counts: object }>).find(
        (r) => r.triggerId === triggerId,
      );
      expect(listed?.counts).toMatchObject({ duplicate: 7 });
    });

    it('PO-4 an invalid item every poll returns is quarantined in each page, and recorded once until it changes', async () => {
      const { triggerId, path } = await pollTrigger({ schema: { required: ['/kind'] } });
      const page = (q1: Record<string, unknown>) => ({ items: [{ kind: 'k', n: 1 }, q1, { id: 'fine', kind: 'k' }] });
      upstream.pages(path, { '': page({ id: 'q1' }) });
      await pollNow(triggerId);
      const first = (await views(triggerId)).poll.quarantined;
      expect(first).toEqual([
        { index: 0, reason: 'the item has no id at /id', at: expect.any(String) },
        { itemId: 'q1', index: 1, reason: 'the item lacks required members: /kind', at: expect.any(String) },
      ]);
      await pollNow(triggerId);
      await pollNow(triggerId);
      // never a silent skip: each page names the item quarantined…
      expect(await dispositions(triggerId)).toEqual([
        ['quarantined', 'quarantined', 'accepted'],
        ['quarantined', 'quarantined', 'duplicate'],
        ['quarantined', 'quarantined', 'duplicate'],
      ]);
      // …but the operator's list holds each item once, from when it was first quarantined
      expect((await views(triggerId)).poll.quarantined).toEqual(first);
      // the same id with another payload is another item to look at
      upstream.pages(path, { '': page({ id: 'q1', other: true }) });
      await pollNow(triggerId);
      expect((await views(triggerId)).poll.quarantined).toEqual([
        ...first,
        { itemId: 'q1', index: 1, reason: 'the item lacks required members: /kind', at: expect.any(String) },
      ]);
    });

    it('OC-5 WH-1 PO-4 an item over the per-item bound (256 KiB) is quarantined or holds the Trigger: never stored as an Occurrence', async () => {
      const big = { id: 'big1', pad: 'x'.repeat(300_000) };
      const quarantining = await pollTrigger();
      upstream.pages(quarantining.path, { '': { items: [{ id: 's1' }, big, { id: 's2' }], next: 'bc' } });
      const recorded = await pollNow(quarantining.triggerId);
      expect((recorded!.events[0] as PollCompleted).data.items).toEqual([
        { index: 0, itemId: 's1', disposition: 'accepted', occurrenceId: expect.any(String) },
        {
          index: 1,
          itemId: 'big1',
          disposition: 'quarantined',
          reason: `the item is ${JSON.stringify(big).length} bytes as JSON; at most ${MAX_POLL_ITEM_BYTES}`,
        },
        { index: 2, itemId: 's2', disposition: 'accepted', occurrenceId: expect.any(String) },
      ]);
      expect((await occurrencesOf(t.sql, TENANT, quarantining.triggerId)).map((o) => o.externalId)).toEqual([
        's1',
        's2',
      ]);
      // the item is in no event of the log: not in an Occurrence, not in the poll's own record
      const { rows } = await t.sql.query<{ n: string }>(
        `SELECT count(*) AS n FROM events WHERE length(data::text) > 100000 AND data->>'triggerId' = $1`,
        [quarantining.triggerId],
      );
      expect(Number(rows[0]!.n)).toBe(0);
      expect((await views(quarantining.triggerId)).poll.quarantined).toEqual([
        { itemId: 'big1', index: 1, reason: expect.stringContaining('bytes as JSON'), at: expect.any(String) },
      ]);

      const holding = await pollTrigger({ onInvalidItem: 'hold' });
      upstream.pages(holding.path, { '': { items: [{ id: 'h1' }, big], next: 'hc' } });
      const held = await pollNow(holding.triggerId);
      expect((held!.events[0] as PollCompleted).data).toMatchObject({
        cursor: { from: null, to: null },
        held: { itemId: 'big1', index: 1 },
      });
      expect((await occurrencesOf(t.sql, TENANT, holding.triggerId)).map((o) => o.externalId)).toEqual(['h1']);
      expect((await views(holding.triggerId)).row.health).toBe('held');
    });

    it('PO-4 PO-1 hold: the poll stops before the invalid item, the cursor unmoved, until an operator sets the cursor', async () => {
      const { triggerId, path } = await pollTrigger({ onInvalidItem: 'hold' });
      upstream.pages(path, {
        '': { items: [{ id: 'h1' }, { id: { no: 'good' } }, { id: 'h3' }], next: 'hc1' },
        hc1: { items: [{ id: 'h4' }], next: 'hc2' },
      });
      const holding = await pollNow(triggerId);
      const event = holding!.events[0] as PollCompleted;
      expect(event.data.items.map((i) => i.itemId)).toEqual(['h1']);
      expect(event.data.cursor).toEqual({ from: null, to: null });
      expect(event.data.held).toMatchObject({ itemId: null, index: 1 });
      // held: due again, yet never fetched
      expect(await pollNow(triggerId)).toBeNull();
      expect(upstream.requestsTo(path)).toHaveLength(1);
      const held = await views(triggerId);
      expect(held.row).toMatchObject({
        health: 'held',
        recovery: [
          { action: 'set_poll_cursor', method: 'PUT', href: `/v1/operator/triggers/${triggerId}/poll-cursor` },
        ],
      });
      expect(held.poll).toMatchObject({
        cursor: null,
        lastResult: 'held',
        held: { index: 1, reason: 'the item id must be a string or an integer' },
      });
      expect(held.poll.held).not.toHaveProperty('itemId');

      const token = await t.token({ scope: 'operator:recover' });
      const body = { cursor: 'hc1', reason: 'item 1 is broken upstream; skip its page' };
      const forbidden = await t.request({
        method: 'PUT',
        url: `/v1/operator/triggers/${triggerId}/poll-cursor`,
        token: await t.token({ scope: 'operator:read' }),
        key: newKey(),
        body,
      });
      expect(forbidden.status).toBe(403);
      const noKey = await t.request({
        method: 'PUT',
        url: `/v1/operator/triggers/${triggerId}/poll-cursor`,
        token,
        body,
      });
      expect(noKey.status).toBe(400);
      const key = newKey();
      const set = await t.request({
        method: 'PUT',
        url: `/v1/operator/triggers/${triggerId}/poll-cursor`,
        token,
        key,
        body,
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ triggerId, cursor: 'hc1', previous: null, released: { index: 1 } });
      // a retry with the same key replays the answer and records nothing more
      const replay = await t.request({
        method: 'PUT',
        url: `/v1/operator/triggers/${triggerId}/poll-cursor`,
        token,
        key,
        body,
      });
      expect(replay.body).toEqual(set.body);
      const recorded = (await pollEvents(t.infra.store, TENANT, triggerId)).filter((e) => e.type === 'PollCursorSet');
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.data).toMatchObject({ from: null, to: 'hc1', reason: body.reason, actor: 'svc-test' });

      const resumed = await pollNow(triggerId);
      expect(upstream.requestsTo(path).at(-1)!.query.get('cursor')).toBe('hc1');
      expect((resumed!.events[0] as PollCompleted).data.cursor).toEqual({ from: 'hc1', to: 'hc2' });
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['h1', 'h4']);
      const released = await views(triggerId);
      expect(released.row.health).toBe('ok');
      expect(released.poll).toMatchObject({ cursor: 'hc2', lastResult: 'ok' });
      expect(released.poll).not.toHaveProperty('held');
    });

    it('PO-1 the poll view needs operator:read, names only poll Triggers, and is tenant-scoped', async () => {
      const { triggerId } = await pollTrigger();
      const url = `/v1/operator/triggers/${triggerId}/poll`;
      expect((await t.request({ method: 'GET', url, token: await t.token({ scope: 'triggers:write' }) })).status).toBe(
        403,
      );
      expect((await t.request({ method: 'GET', url, token: null })).status).toBe(401);
      const foreign = await t.request({
        method: 'GET',
        url,
        token: await t.token({ tenant: 'tenant-b', scope: 'operator:read' }),
      });
      expect(foreign.status).toBe(404);
      expect((await operator('/v1/operator/triggers/nothing-here/poll')).status).toBe(404);
      const manual = await t.request({
        method: 'PUT',
        url: '/v1/triggers/t-manual-not-poll',
        key: newKey(),
        body: { expectedRevision: 0, missionId: MISSION, type: 'manual' },
      });
      expect(manual.status).toBe(200);
      const notPoll = await operator('/v1/operator/triggers/t-manual-not-poll/poll');
      expect(notPoll.status).toBe(409);
      expect(notPoll.body.code).toBe('trigger_not_poll');
      // never polled yet: the state a poll Trigger starts with
      expect((await operator(url)).body).toEqual({
        triggerId,
        cursor: null,
        lastPollAt: null,
        lastResult: null,
        consecutiveFailures: 0,
        quarantined: [],
        secretSetAt: null,
      });
    });

    it('CP-1 TR-1 a poll Trigger is taken over HTTP with every poll default written out; disabled, it is not polled', async () => {
      const triggerId = 't-poll-defaults';
      const path = `/${triggerId}`;
      upstream.pages(path, { '': { items: [{ id: 'd1' }] } });
      const put = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: {
          expectedRevision: 0,
          missionId: MISSION,
          type: 'poll',
          enabled: false,
          poll: {
            connector: 'http-json@1',
            url: upstream.url(path),
            everySeconds: 1,
            itemsPointer: '/items',
            idPointer: '/id',
          },
        },
      });
      expect(put.status).toBe(200);
      const read = await t.request({ method: 'GET', url: `/v1/triggers/${triggerId}` });
      expect(read.body.poll).toEqual({
        connector: 'http-json@1',
        url: upstream.url(path),
        everySeconds: 1,
        itemsPointer: '/items',
        idPointer: '/id',
        cursorParam: null,
        nextCursorPointer: null,
        onInvalidItem: 'hold',
        timeoutSeconds: 10,
        maxResponseBytes: 1_048_576,
        schema: { required: [] },
        auth: null,
      });
      await t.catchUp();
      await loop.runOnce();
      expect(upstream.requestsTo(path)).toHaveLength(0);
      const enable = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/enable`,
        key: newKey(),
        body: {},
      });
      expect(enable.status).toBe(200);
      await t.catchUp();
      await loop.runOnce();
      expect(upstream.requestsTo(path)).toHaveLength(1);
      const invalid = await t.request({
        method: 'PUT',
        url: '/v1/triggers/t-poll-invalid',
        key: newKey(),
        body: {
          expectedRevision: 0,
          missionId: MISSION,
          type: 'poll',
          poll: pollBlock('file:///etc/passwd', {
            timeoutSeconds: 0,
            maxResponseBytes: 10,
            schema: { required: ['x'] },
          }),
        },
      });
      expect(invalid.status).toBe(422);
      expect(invalid.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '/poll/url',
        '/poll/timeoutSeconds',
        '/poll/maxResponseBytes',
        '/poll/schema/required/0',
      ]);
    });

    it('PO-1 the poll-cursor body is validated before anything is recorded', async () => {
      const { triggerId } = await pollTrigger();
      const token = await t.token({ scope: 'operator:recover' });
      const put = (body: unknown, id = triggerId) =>
        t.request({ method: 'PUT', url: `/v1/operator/triggers/${id}/poll-cursor`, token, key: newKey(), body });
      expect((await put({ cursor: 'x\u0001y', reason: 'r' })).status).toBe(400);
      expect((await put({ cursor: 'x'.repeat(2049), reason: 'r' })).status).toBe(400);
      expect((await put({ cursor: 'ok', reason: '   ' })).status).toBe(400);
      expect((await put({ cursor: 'ok', reason: 'r' }, 'no-such-trigger')).status).toBe(404);
      expect(await pollEvents(t.infra.store, TENANT, triggerId)).toEqual([]);
    });
  });
}
