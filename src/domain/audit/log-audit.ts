import type { RecordedEvent } from '../ports/event-store.js';
import { type ChainProblem, chainProblems, type ChainTip } from './verify-chain.js';
import { type ReplayRule, type StreamReplays, replayEvent, newReplays } from './replay.js';
import type { AuditRule, AuditSummary, AuditViolation, RuleTally } from './audit-rules.js';

const FIRST_POSITIONS = 5;

/** An event as the replay sees it, or why it cannot be upcast. */
export type UpcastOutcome = { event: RecordedEvent } | { error: string };

export function upcastOutcome(upcast: (event: RecordedEvent) => RecordedEvent, event: RecordedEvent): UpcastOutcome {
  try {
    return { event: upcast(event) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const CHAIN_DETAIL: Record<ChainProblem, string> = {
  revision_gap: 'the revision does not follow the previous event of the stream',
  prev_hash_mismatch: "prev_hash is not the previous event's hash",
  hash_mismatch: 'the hash does not cover the stored content',
};

/**
 * AU-2 over the log, one event at a time in log order, so the log is never held in memory: each stream's
 * hash chain and revisions, and each stream replayed through its domain `evolve` with the invariants the
 * domain makes checkable (replay.ts). Events are given as stored (the hash covers those bytes); the
 * replay sees them through `upcast`, as the command side does (AU-3).
 */
export class LogAuditor {
  /** `checked`: the stream had an event checked, not only seeded (counts it once without a second set of ids). */
  private readonly tips = new Map<string, ChainTip & { checked: boolean; position: number }>();
  private streams = 0;
  private readonly replays: StreamReplays = newReplays();
  private readonly byRule: Partial<Record<AuditRule, RuleTally>> = {};
  private readonly listed: AuditViolation[] = [];
  private events = 0;
  private violations = 0;

  constructor(
    private readonly upcast: (event: RecordedEvent) => RecordedEvent = (event) => event,
    private readonly listLimit = 1000,
  ) {}

  /** History before `--from`: folded so later events have their context, never reported. */
  seed(event: RecordedEvent): void {
    this.tips.set(event.streamId, {
      revision: event.revision,
      hash: event.hash,
      checked: false,
      position: event.position,
    });
    try {
      replayEvent(this.replays, this.upcast(event), () => undefined);
    } catch {
      // An event that cannot be upcast is context nobody can fold; the events checked after it say what it broke.
    }
  }

  /** Whether the stream's earlier events are known (seeded or checked). */
  knows(streamId: string): boolean {
    return this.tips.has(streamId);
  }

  /** `upcast`: how the replay sees the event, when the caller has already upcast it (another thread checks it). */
  check(event: RecordedEvent, upcast: UpcastOutcome = upcastOutcome(this.upcast, event)): void {
    this.events += 1;
    const at = { streamId: event.streamId, position: event.position, revision: event.revision };
    const tip = this.tips.get(event.streamId);
    for (const problem of chainProblems(tip ?? null, event))
      this.report({ ...at, rule: problem, detail: CHAIN_DETAIL[problem] });
    // The hash does not cover the position, the log's address of the event: a row moved to another one shows here.
    if (tip && event.position <= tip.position)
      this.report({
        ...at,
        rule: 'position_out_of_order',
        detail: `the position is not after the stream's previous event (position ${tip.position}, revision ${tip.revision})`,
      });
    if (!tip?.checked) this.streams += 1;
    // The next event follows this one's hash and position, but the highest revision seen: two swapped rows are
    // reported, not every later one.
    this.tips.set(event.streamId, {
      revision: Math.max(event.revision, tip?.revision ?? -1),
      hash: event.hash,
      checked: true,
      position: event.position,
    });
    const report = (rule: ReplayRule, detail: string) => this.report({ ...at, rule, detail });
    if ('error' in upcast) return report('replay_failed', `${event.type} v${event.schemaVersion}: ${upcast.error}`);
    replayEvent(this.replays, upcast.event, report);
  }

  summary(): AuditSummary {
    return {
      events: this.events,
      streams: this.streams,
      violations: this.violations,
      byRule: structuredClone(this.byRule),
      listed: [...this.listed],
    };
  }

  private report(violation: AuditViolation): void {
    this.violations += 1;
    const tally = (this.byRule[violation.rule] ??= { count: 0, firstPositions: [] });
    tally.count += 1;
    if (tally.firstPositions.length < FIRST_POSITIONS && !tally.firstPositions.includes(violation.position))
      tally.firstPositions.push(violation.position);
    if (this.listed.length < this.listLimit) this.listed.push(violation);
  }
}
