import { Redis } from 'ioredis';
import { ApiError, type ExecutionClaim } from './executions-api.js';
import { type Intake, pause } from './pull-loop.js';
import type { Slots } from './slots.js';

const DEFAULT_STREAM = 'reveille:wakeups';
const DEFAULT_GROUP = 'reveille-workers';
/** How long a sweep after a handler's end waits for the freed slot to be offered (it holds the claim turn). */
const AFTER_END_WAIT_SECONDS = 2;

type StreamReply = Array<[string, Array<[string, string[]]>]> | null;

const fieldsOf = (flat: string[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
};

/**
 * Wakeups through a consumer group (EX-1): read, claim over HTTP, ack after the claim attempt. An entry is a
 * hint: a lost one (sent before the group existed, skipped at a Mission's limit or its lane) is found by a
 * `claim-next` sweep whenever the stream stays quiet for `waitSeconds`, and at least that often under traffic; one
 * this worker skipped for a full Mission or a busy lane, as soon as one of its handlers ends.
 */
export class RedisIntake {
  private readonly commands: Redis;
  private readonly reader: Redis;
  private readonly stream: string;
  private readonly group: string;
  private blocked = false;
  private grouped = false;
  /** When the last sweep ran (Date.now()); the first is due `waitSeconds` after the start, as if one had run then. */
  private sweptAt = Date.now();
  /** When a wakeup was last skipped because its Mission was full or its lane busy: it gets no second wakeup. */
  private skippedAt = 0;
  /** Whether the last sweep claimed anything: a backlog behind a full Mission drains one sweep per handler's end. */
  private sweepClaimed = false;
  /** Claims from entries and sweeps take turns: each checks for a free slot and fills it across an HTTP call. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    options: { url: string; stream?: string; group?: string },
    private readonly intake: Intake,
    private readonly slots: Slots,
  ) {
    this.commands = new Redis(options.url, { lazyConnect: true });
    this.reader = new Redis(options.url, { lazyConnect: true });
    this.stream = options.stream ?? DEFAULT_STREAM;
    this.group = options.group ?? DEFAULT_GROUP;
  }

  async loop(): Promise<void> {
    while (!this.intake.stopped()) {
      await this.slots.whenFree();
      if (this.intake.stopped()) break;
      try {
        if (!this.grouped) await this.ensureGroup();
        const entries = await this.read(this.slots.free);
        await this.inTurn(async () => {
          for (const [id, fields] of entries) await this.claimAndAck(id, fields);
          if (entries.length === 0 || Date.now() - this.sweptAt >= this.intake.waitSeconds * 1000) await this.sweep();
        });
      } catch (error) {
        if (this.intake.stopped()) break;
        this.intake.report({ type: 'error', error });
        await pause(1000);
      }
    }
  }

  /** A blocked read holds no claim, so cutting it short on stop loses nothing. */
  interrupt(): void {
    if (this.blocked) this.reader.disconnect();
  }

  /**
   * Leaves the group without a trace when nothing is pending for this consumer: consumer ids are per process, and a
   * group kept every stopped worker's entry for good (XINFO CONSUMERS grew with each restart). An entry still pending
   * stays with its consumer, for XPENDING to show.
   */
  async close(): Promise<void> {
    this.reader.disconnect();
    if (this.grouped) await this.leaveGroup().catch(() => undefined);
    await this.commands.quit().catch(() => undefined);
  }

  private async leaveGroup(): Promise<void> {
    const [pending] = (await this.commands.xpending(this.stream, this.group)) as [number, ...unknown[]];
    const mine =
      pending === 0
        ? []
        : ((await this.commands.xpending(this.stream, this.group, '-', '+', 1, this.intake.consumerId)) as unknown[]);
    if (mine.length === 0) await this.commands.xgroup('DELCONSUMER', this.stream, this.group, this.intake.consumerId);
  }

  private async ensureGroup(): Promise<void> {
    try {
      await this.commands.xgroup('CREATE', this.stream, this.group, '$', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
    this.grouped = true;
  }

  private async read(count: number): Promise<Array<[string, Record<string, string>]>> {
    this.blocked = true;
    try {
      const reply = (await this.reader.xreadgroup(
        'GROUP',
        this.group,
        this.intake.consumerId,
        'COUNT',
        count,
        'BLOCK',
        Math.max(1, this.intake.waitSeconds * 1000),
        'STREAMS',
        this.stream,
        '>',
      )) as StreamReply;
      return (reply?.[0]?.[1] ?? []).map(([id, flat]) => [id, fieldsOf(flat)]);
    } finally {
      this.blocked = false;
    }
  }

  private async claimAndAck(entryId: string, fields: Record<string, string>): Promise<void> {
    const { missionId, triggerId } = this.intake.filter;
    const executionId = fields.executionId;
    const ours =
      executionId !== undefined &&
      (missionId === undefined || fields.missionId === missionId) &&
      (triggerId === undefined || fields.triggerId === triggerId);
    // With no slot free (a sweep after a handler ended took it), the sweep after the next one finds the execution.
    if (ours && this.slots.free > 0) await this.claim(executionId);
    else if (ours) this.skippedAt = Date.now();
    await this.commands.xack(this.stream, this.group, entryId);
  }

  private async claim(executionId: string): Promise<void> {
    try {
      this.start(await this.intake.api.claim(executionId, this.intake.consumerId));
    } catch (error) {
      // 409: another consumer won, it already ended, or the Mission is at its limit (the sweep finds it later).
      if (error instanceof ApiError && error.status === 409) {
        if (error.code === 'concurrency_limit' || error.code === 'lane_busy') this.skippedAt = Date.now();
        this.intake.report({ type: 'skipped', executionId, code: error.code });
      } else this.intake.report({ type: 'error', executionId, error });
    }
  }

  /**
   * Runs the handler; when it ends, the slot it held in its Mission (and its lane) is free again. A wakeup skipped for
   * want of one (within the last `waitSeconds`), or the rest of a backlog the last sweep was draining, would otherwise
   * wait for the periodic sweep: sweep at once, long-polling briefly, as the service offers the freed slot only once
   * its read model has folded the end.
   */
  private start(claim: ExecutionClaim): void {
    void this.intake.run(claim).then(() => {
      const owed = this.sweepClaimed || Date.now() - this.skippedAt <= this.intake.waitSeconds * 1000;
      if (this.intake.stopped() || !owed) return;
      this.inTurn(() => this.sweep(Math.min(AFTER_END_WAIT_SECONDS, this.intake.waitSeconds))).catch((error: unknown) =>
        this.intake.report({ type: 'error', error }),
      );
    });
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /**
   * Claims what is claimable now, while slots are free. An execution skipped at its lane or its Mission's limit gets
   * no wakeup when it frees up, so under steady traffic (the stream never quiet) the sweep also runs every
   * `waitSeconds`: one sweep of one execution per quiet period drained a resource lane at one a minute.
   */
  private async sweep(firstWaitSeconds = 0): Promise<void> {
    this.sweptAt = Date.now();
    let claimed = 0;
    while (!this.intake.stopped() && this.slots.free > 0) {
      const claim = await this.intake.api.claimNext({
        consumerId: this.intake.consumerId,
        ...this.intake.filter,
        waitSeconds: claimed === 0 ? firstWaitSeconds : 0,
      });
      if (!claim) break;
      claimed += 1;
      this.start(claim);
    }
    this.sweepClaimed = claimed > 0;
  }
}
