import { IllegalStateError } from '../shared/errors.js';
import type { Decider, DomainEvent } from '../shared/decider.js';
import { MAX_COALESCE_MEMBERS } from './coalesce-rule.js';

/** A member of a group: its Occurrence, the stream holding it, and when the store accepted it. */
export interface CoalesceMember {
  occurrenceId: string;
  streamId: string;
  acceptedAt: string;
}

/** The group a coalesce stream holds open: at most one at a time. */
export interface OpenGroup {
  /** The first member's Occurrence id. */
  groupId: string;
  /** The first member's acceptance: the window counts from here, never from a payload time (DD-5). */
  openedAt: string;
  closesAt: string;
  /** The stream revision of `CoalesceGroupOpened`: the members are the group's events from here on. */
  openedRevision: number;
  size: number;
}

export interface CoalesceStreamState {
  open: OpenGroup | null;
  /** Groups closed so far on this stream. */
  closed: number;
}

/** Each event carries the whole state after it, so admission reads the stream's last event only. */
interface Carried {
  state: CoalesceStreamState;
}

export type CoalesceGroupOpened = DomainEvent<
  'CoalesceGroupOpened',
  Carried & {
    tenant: string;
    triggerId: string;
    missionId: string;
    rule: number;
    resource: string | number | null;
    windowMs: number;
    groupId: string;
    member: CoalesceMember;
    closesAt: string;
    at: string;
  }
>;

export type CoalesceMemberAdded = DomainEvent<
  'CoalesceMemberAdded',
  Carried & { tenant: string; groupId: string; member: CoalesceMember; at: string }
>;

/**
 * Appended with the decisions of every member (one admission decision for the last, `coalesced` for the
 * others) at the revision read, so of any number of closers exactly one closes the group.
 */
export type CoalesceGroupClosed = DomainEvent<
  'CoalesceGroupClosed',
  Carried & {
    tenant: string;
    groupId: string;
    /** Every member's Occurrence id in acceptance order: immutable from here on. */
    members: string[];
    /** The last member in acceptance order: the one decided by admission, the others coalesced into it. */
    representative: string;
    /**
     * What admission did with the representative: decided it, or (BA-1, a batching Trigger) `batched`: it joined
     * its batch partition, whose close decides it.
     */
    decision: 'admitted' | 'blocked' | 'suppressed' | 'batched';
    at: string;
  }
>;

export type CoalesceEvent = CoalesceGroupOpened | CoalesceMemberAdded | CoalesceGroupClosed;
export const COALESCE_EVENT_TYPES: readonly CoalesceEvent['type'][] = [
  'CoalesceGroupOpened',
  'CoalesceMemberAdded',
  'CoalesceGroupClosed',
];

export const initialCoalesceState: CoalesceStreamState = { open: null, closed: 0 };

export const evolveCoalesce = (_state: CoalesceStreamState, event: CoalesceEvent): CoalesceStreamState =>
  event.data.state;

/** Folding only: every decision about a group is made by admission (`admitInOrder`), which owns its reads. */
export const coalesceFold: Pick<Decider<CoalesceStreamState, CoalesceEvent, never>, 'initialState' | 'evolve'> = {
  initialState: initialCoalesceState,
  evolve: evolveCoalesce,
};

/**
 * A member accepted at `acceptedAt` cannot join the open group once its window has passed by that acceptance
 * (or it is full): the group must close first. The timer asks the same with the database's now.
 */
export const isDue = (open: OpenGroup, at: string): boolean =>
  Date.parse(at) >= Date.parse(open.closesAt) || open.size >= MAX_COALESCE_MEMBERS;

export interface Opening {
  tenant: string;
  triggerId: string;
  missionId: string;
  rule: number;
  resource: string | number | null;
  windowMs: number;
  member: CoalesceMember;
  /** The stream's revision before this event. */
  revision: number;
  at: string;
}

export function openGroup(opening: Opening, state: CoalesceStreamState): CoalesceGroupOpened {
  if (state.open) throw new IllegalStateError('a coalesce stream holds one open group at a time');
  const { member, revision, ...rest } = opening;
  const closesAt = new Date(Date.parse(member.acceptedAt) + opening.windowMs).toISOString();
  const open: OpenGroup = {
    groupId: member.occurrenceId,
    openedAt: member.acceptedAt,
    closesAt,
    openedRevision: revision + 1,
    size: 1,
  };
  return {
    type: 'CoalesceGroupOpened',
    data: { ...rest, member, groupId: open.groupId, closesAt, state: { ...state, open } },
  };
}

export function addMember(
  tenant: string,
  member: CoalesceMember,
  at: string,
  state: CoalesceStreamState,
): CoalesceMemberAdded {
  const open = state.open;
  if (!open || isDue(open, member.acceptedAt))
    throw new IllegalStateError('only an open group within its window takes members');
  return {
    type: 'CoalesceMemberAdded',
    data: { tenant, groupId: open.groupId, member, at, state: { ...state, open: { ...open, size: open.size + 1 } } },
  };
}

export function closeGroup(
  tenant: string,
  members: readonly CoalesceMember[],
  decision: CoalesceGroupClosed['data']['decision'],
  at: string,
  state: CoalesceStreamState,
): CoalesceGroupClosed {
  const open = state.open;
  if (!open || members.length !== open.size || members[0]?.occurrenceId !== open.groupId)
    throw new IllegalStateError('closing a group needs exactly its members');
  return {
    type: 'CoalesceGroupClosed',
    data: {
      tenant,
      groupId: open.groupId,
      members: members.map((m) => m.occurrenceId),
      representative: members[members.length - 1]!.occurrenceId,
      decision,
      at,
      state: { open: null, closed: state.closed + 1 },
    },
  };
}

/**
 * The open group's members in acceptance order, from its events (read from `openedRevision` on). Admission
 * reaches Occurrences in log order and appends each join at the stream's revision, so join order is the
 * store's acceptance order.
 */
export function membersOf(open: OpenGroup, events: readonly CoalesceEvent[]): CoalesceMember[] {
  const members: CoalesceMember[] = [];
  for (const event of events) {
    if (event.type === 'CoalesceGroupClosed' || event.data.groupId !== open.groupId) continue;
    members.push(event.data.member);
  }
  return members;
}

/**
 * A coalesce stream as admission read it (and as its batch left it): the state, its revision, and the open
 * group's members when the read found the group due or about to fill (null: not read, the group cannot close here).
 */
export interface CoalesceRead {
  state: CoalesceStreamState;
  revision: number;
  members: CoalesceMember[] | null;
}
