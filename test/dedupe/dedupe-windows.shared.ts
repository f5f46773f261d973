import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { githubHeaders, post, standardHeaders, webhookSetup } from '../ingress/ingress-client.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { PollUpstream } from '../support/poll-upstream.js';
import { makeDue, pollBlock, pollLoop } from '../poll/poll-fixtures.js';

/** DD-4 over HTTP: signed webhooks through the whole pipeline; admission driven by hand. */
export function dedupeWindowsSuite(kind: StoreKind): void {
  describe(`DD-4 dedupe windows (${kind})`, () => {
    let t: TestApp;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => t?.close());

    /** A standard-webhooks source (tolerance 2 s: auth replay horizon 4 s) and a Trigger with the given window. */
    const setup = (name: string, windowSeconds: number, toleranceSeconds = 2) =>
      webhookSetup(t, name, {
        source: { toleranceSeconds },
        trigger: { dedupe: { strategy: 'delivery-id@1', windowSeconds } },
      });

    /** A provider retry: the same delivery id, freshly signed now. */
    const deliver = (
      s: { sourceId: string; secret: string },
      id: string,
      payload: unknown = { type: 'push', n: 1 },
    ) => {
      const body = JSON.stringify(payload);
      return post(t, s.sourceId, body, standardHeaders(s.secret, body, { id }));
    };
    const occurrenceOf = (answer: { body: { occurrences: Array<{ occurrenceId: string; status: string }> } }) =>
      answer.body.occurrences[0]!;

    /** The decision's time as the store recorded it. */
    const decidedAt = async (occurrenceId: string) => {
      const events = await t.infra.store.readStream(occurrenceStream(occurrenceId));
      const decision = events.find((e) => e.type !== 'OccurrenceObserved' && e.type !== 'DeliveryConflictRecorded');
      expect(decision).toBeDefined();
      return Date.parse((decision!.data as { decidedAt: string }).decidedAt);
    };
    /** Polls the database clock (never the host's) until `seconds` after `from` have passed. */
    const untilDatabasePast = async (from: number, seconds: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await t.sql.query<{ now: Date }>('SELECT now() AS now');
        if (new Date(rows[0]!.now).getTime() >= from + seconds * 1000 + 200) return;
        if (Date.now() > deadline) throw new Error('the database clock did not advance');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const observedFor = async (key: string) =>
      (
        await t.sql.query<{ stream_id: string }>(
          `SELECT stream_id FROM events WHERE type = 'OccurrenceObserved' AND data->'dedupeIdentity'->>'key' = $1`,
          [key],
        )
      ).rows.map((r) => r.stream_id);

    it('DD-4 a duplicate within the window answers duplicate, decided or not', async () => {
      const s = await setup('dw-within', 3600);
      const first = await deliver(s, 'msg_within');
      expect(first.status).toBe(202);
      const again = await deliver(s, 'msg_within');
      expect(again.status).toBe(200);
      expect(occurrenceOf(again)).toEqual({ ...occurrenceOf(first), status: 'duplicate' });
      await admit();
      const decided = await deliver(s, 'msg_within');
      expect(occurrenceOf(decided)).toEqual({ ...occurrenceOf(first), status: 'duplicate' });
      expect(await observedFor('msg_within')).toHaveLength(1);
    });

    it('DD-4 after a terminal decision and the window, the identity starts a new Occurrence (its next generation), itself deduplicated', async () => {
      const s = await setup('dw-expire', 1);
      const first = occurrenceOf(await deliver(s, 'msg_expire'));
      await admit();
      // Retention is max(window 1 s, auth replay horizon 2 × 2 s) after the decision, by the database clock.
      await untilDatabasePast(await decidedAt(first.occurrenceId), 4);
      const reused = await deliver(s, 'msg_expire');
      expect(reused.status).toBe(202);
      const second = occurrenceOf(reused);
      expect(second.status).toBe('observed');
      expect(second.occurrenceId).not.toBe(first.occurrenceId);
      const [observed] = await t.infra.store.readStream(occurrenceStream(second.occurrenceId));
      expect(observed!.data).toMatchObject({ dedupeIdentity: { key: 'msg_expire', generation: 1 } });
      // The new one is undecided: it never expires, however long it waits.
      await untilDatabasePast(Date.now(), 4.5);
      expect(occurrenceOf(await deliver(s, 'msg_expire'))).toEqual({ ...second, status: 'duplicate' });
      await admit();
      await t.catchUp();
      const listed = await t.request({ method: 'GET', url: `/v1/operator/occurrences?triggerId=${s.triggerId}` });
      // Each use is an Occurrence of its own, decided on its own.
      expect(
        listed.body.items.map((o: { occurrenceId: string; status: string }) => [o.occurrenceId, o.status]).sort(),
      ).toEqual(
        [
          [first.occurrenceId, 'admitted'],
          [second.occurrenceId, 'admitted'],
        ].sort(),
      );
    });

    it('DD-4 DD-2 an identity is never reused while its auth replay window holds, whatever the dedupe window says', async () => {
      // Window 1 s, tolerance 300 s: the auth replay store keeps the delivery id for 600 s.
      const s = await setup('dw-replay', 1, 300);
      const first = occurrenceOf(await deliver(s, 'msg_replay'));
      await admit();
      await untilDatabasePast(await decidedAt(first.occurrenceId), 2);
      const retried = await deliver(s, 'msg_replay');
      expect(retried.status).toBe(200);
      expect(occurrenceOf(retried)).toEqual({ ...first, status: 'duplicate' });
      expect(await observedFor('msg_replay')).toHaveLength(1);
    });

    it('DD-2 DD-4 hostile: a captured GitHub delivery replayed after the dedupe window is still refused or a duplicate, never new', async () => {
      const s = await webhookSetup(t, 'dw-gh', {
        scheme: 'github-hmac-sha256',
        source: { eventTypePointer: null },
        trigger: {
          source: { sourceId: 's-dw-gh', eventTypes: ['push'] },
          dedupe: { strategy: 'delivery-id@1', windowSeconds: 1 },
        },
      });
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const headers = await githubHeaders(s.secret, body, { id: 'gh-captured' });
      const first = await post(t, s.sourceId, body, headers);
      expect(first.status).toBe(202);
      await admit();
      await untilDatabasePast(await decidedAt(occurrenceOf(first).occurrenceId), 2);
      const sameBytes = await post(t, s.sourceId, body, headers);
      expect(sameBytes.status).toBe(200);
      expect(occurrenceOf(sameBytes)).toEqual({ ...occurrenceOf(first), status: 'duplicate' });
      const otherId = await post(t, s.sourceId, body, { ...headers, 'x-github-delivery': 'gh-forged' });
      expect(otherId.status).toBe(401);
      expect(otherId.body.code).toBe('signature_invalid');
      expect(await observedFor('gh-captured')).toHaveLength(1);
      expect(await observedFor('gh-forged')).toHaveLength(0);
    });

    it('DD-3 DD-4 deliveries racing after expiry create exactly one new Occurrence', async () => {
      const s = await setup('dw-race', 1);
      const first = occurrenceOf(await deliver(s, 'msg_race'));
      await admit();
      await untilDatabasePast(await decidedAt(first.occurrenceId), 4);
      const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(s, 'msg_race')));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 202]);
      const ids = new Set(answers.map((a) => occurrenceOf(a).occurrenceId));
      expect(ids.size).toBe(1);
      expect(ids.has(first.occurrenceId)).toBe(false);
      expect(await observedFor('msg_race')).toHaveLength(2);
    });

    it('DD-4 OC-4 within the window another payload is a payload_conflict; after it, another payload starts the next generation', async () => {
      const s = await setup('dw-conflict', 1);
      const first = occurrenceOf(await deliver(s, 'msg_conflict', { type: 'push', n: 1 }));
      expect((await deliver(s, 'msg_conflict', { type: 'push', n: 2 })).status).toBe(409);
      await admit();
      await untilDatabasePast(await decidedAt(first.occurrenceId), 4);
      const next = await deliver(s, 'msg_conflict', { type: 'push', n: 2 });
      expect(next.status).toBe(202);
      expect(occurrenceOf(next).occurrenceId).not.toBe(first.occurrenceId);
    });

    it('DD-4 PO-2 a poll item still listed upstream is a new Occurrence only once its last one is decided and its window passed', async () => {
      const upstream = await PollUpstream.start();
      try {
        const page = { items: [{ id: 'kept', n: 1 }], next: 'after' };
        upstream.pages('/dw-poll', { '': page, after: page });
        const s = await setup('dw-poll-mission', 3600);
        const put = await t.request({
          method: 'PUT',
          url: '/v1/triggers/t-dw-poll',
          key: newKey(),
          body: {
            expectedRevision: 0,
            missionId: s.missionId,
            type: 'poll',
            poll: pollBlock(upstream.url('/dw-poll')),
            dedupe: { strategy: 'delivery-id@1', windowSeconds: 1 },
          },
        });
        expect(put.status).toBe(200);
        await t.catchUp();
        const loop = pollLoop(t.infra.store, t.sql);
        const pollNow = async () => {
          await makeDue(t.sql, 'tenant-a', 't-dw-poll');
          await loop.pollTrigger({ tenant: 'tenant-a', triggerId: 't-dw-poll' });
        };
        await pollNow();
        const [first] = await observedFor('kept');
        expect(first).toBeDefined();
        // Undecided: polled again after the window, still the same Occurrence.
        await untilDatabasePast(Date.now(), 1.5);
        await pollNow();
        expect(await observedFor('kept')).toEqual([first]);
        await admit();
        await untilDatabasePast(await decidedAt(first!.slice('occurrence-'.length)), 1);
        await pollNow();
        const both = await observedFor('kept');
        expect(both).toHaveLength(2);
        // The new one is undecided: the next poll adds nothing.
        await pollNow();
        expect(await observedFor('kept')).toEqual(both);
        // OC-4: another payload now conflicts with the latest use, and is recorded there, not on the first
        const changed = { items: [{ id: 'kept', n: 2 }], next: 'after' };
        upstream.pages('/dw-poll', { '': changed, after: changed });
        await pollNow();
        const { rows } = await t.sql.query<{ stream_id: string }>(
          `SELECT stream_id FROM events WHERE type = 'DeliveryConflictRecorded' AND stream_id = ANY($1::text[])`,
          [both],
        );
        expect(rows.map((r) => r.stream_id)).toEqual(both.filter((stream) => stream !== first));
        expect(await observedFor('kept')).toEqual(both);
      } finally {
        await upstream.close();
      }
    });
  });
}
