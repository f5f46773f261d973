import { canonicalJson } from '../shared/canonical-json.js';
import type { Decider, DomainEvent } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';
import { validateSourceDefinition, type SourceDefinition } from './source-definition.js';

/** One key generation of a source (WH-3): its id and number, never its secret. */
export interface SourceKeyGeneration {
  keyId: string;
  generation: number;
  retired: boolean;
  addedAt: string;
  retiredAt: string | null;
}

export type SourceState =
  | { status: 'absent' }
  | {
      status: 'defined';
      tenant: string;
      sourceId: string;
      /** Revision of the definition; key events do not change it. */
      revision: number;
      definition: SourceDefinition;
      keys: SourceKeyGeneration[];
      revisedAt: string;
    };

export type DefinedSource = Extract<SourceState, { status: 'defined' }>;

interface SourceCommandBase {
  tenant: string;
  sourceId: string;
  actor: string;
  at: string;
}

/** Create or revise a source from a raw PUT body (definition members at the root). */
export interface ReviseSource extends SourceCommandBase {
  type: 'ReviseSource';
  /** 0 = must not exist; n = must be at revision n; omitted = unconditional (as Missions and Triggers). */
  expectedRevision?: number;
  definition: unknown;
  reason: string;
}

/** Add a key generation; the handler chose the key id (given or generated) and stores the secret. */
export interface AddSourceKey extends SourceCommandBase {
  type: 'AddSourceKey';
  keyId: string;
}

/** Retire a key at once: deliveries signed by it stop authenticating and admission re-checks it (AD-2). */
export interface RetireSourceKey extends SourceCommandBase {
  type: 'RetireSourceKey';
  keyId: string;
}

/** A new revision of a source: the whole normalized definition. */
export type SourceRevised = DomainEvent<
  'SourceRevised',
  {
    tenant: string;
    sourceId: string;
    revision: number;
    definition: SourceDefinition;
    reason: string;
    actor: string;
    at: string;
  }
>;

/** A key generation was added; the secret lives in the secret store, never here (decision 7, docs/architecture.md). */
export type SourceKeyAdded = DomainEvent<
  'SourceKeyAdded',
  { tenant: string; sourceId: string; keyId: string; generation: number; at: string; actor: string }
>;

/** A key generation was retired. */
export type SourceKeyRetired = DomainEvent<
  'SourceKeyRetired',
  { tenant: string; sourceId: string; keyId: string; generation: number; at: string; actor: string }
>;

export type SourceCommand = ReviseSource | AddSourceKey | RetireSourceKey;
export type SourceEvent = SourceRevised | SourceKeyAdded | SourceKeyRetired;
export type SourceRejectionCode =
  'invalid_definition' | 'revision_conflict' | 'not_found' | 'scheme_has_no_keys' | 'key_exists' | 'key_limit_reached';
type SourceDecision = SourceEvent[] | Rejection<SourceRejectionCode>;

/** WH-3 "bounded overlap": every active key costs one HMAC per forged delivery. */
export const MAX_ACTIVE_KEYS = 5;

export const initialSourceState: SourceState = { status: 'absent' };

export function evolveSource(state: SourceState, event: SourceEvent): SourceState {
  switch (event.type) {
    case 'SourceRevised': {
      const { tenant, sourceId, revision, definition, at } = event.data;
      const keys = state.status === 'defined' ? state.keys : [];
      return { status: 'defined', tenant, sourceId, revision, definition, keys, revisedAt: at };
    }
    case 'SourceKeyAdded': {
      if (state.status === 'absent') return state;
      const { keyId, generation, at } = event.data;
      return { ...state, keys: [...state.keys, { keyId, generation, retired: false, addedAt: at, retiredAt: null }] };
    }
    case 'SourceKeyRetired': {
      if (state.status === 'absent') return state;
      const { keyId, at } = event.data;
      return {
        ...state,
        keys: state.keys.map((k) => (k.keyId === keyId && !k.retired ? { ...k, retired: true, retiredAt: at } : k)),
      };
    }
    default: {
      const _: never = event;
      return state;
    }
  }
}

/** WH-3: a key that is gone or retired no longer vouches for deliveries not yet admitted. */
export function isKeyRetired(state: SourceState, keyId: string): boolean {
  if (state.status === 'absent') return true;
  const key = state.keys.find((k) => k.keyId === keyId);
  return key === undefined || key.retired;
}

export const activeKeys = (state: DefinedSource): SourceKeyGeneration[] => state.keys.filter((k) => !k.retired);

/** The scheme is fixed at creation: keys are scheme-specific, so a new scheme would orphan or misuse every key. */
export function reviseSource(command: ReviseSource, state: SourceState): SourceDecision {
  const validated = validateSourceDefinition(command.definition);
  if (!validated.ok) return reject('invalid_definition', { errors: validated.errors });
  const definition = validated.value;
  const currentRevision = state.status === 'defined' ? state.revision : 0;
  if (command.expectedRevision !== undefined && command.expectedRevision !== currentRevision) {
    return reject('revision_conflict', { detail: `expected revision ${command.expectedRevision}`, currentRevision });
  }
  if (state.status === 'defined' && state.definition.scheme !== definition.scheme) {
    return reject('invalid_definition', {
      errors: [
        {
          pointer: '/scheme',
          message: `scheme cannot change (it is "${state.definition.scheme}"); create a new source`,
        },
      ],
    });
  }
  if (state.status === 'defined' && canonicalJson(state.definition) === canonicalJson(definition)) return [];
  const { tenant, sourceId, reason, actor, at } = command;
  return [
    { type: 'SourceRevised', data: { tenant, sourceId, revision: currentRevision + 1, definition, reason, actor, at } },
  ];
}

/** Generations only grow: max + 1, also past retired keys, so a generation never names two keys. */
export function addSourceKey(command: AddSourceKey, state: SourceState): SourceDecision {
  if (state.status === 'absent') return reject('not_found');
  if (state.definition.scheme === 'unsigned')
    return reject('scheme_has_no_keys', { detail: 'unsigned sources take no keys' });
  if (state.keys.some((k) => k.keyId === command.keyId))
    return reject('key_exists', {
      detail: `key "${command.keyId}" exists (key ids are never reused, even after retirement)`,
    });
  if (activeKeys(state).length >= MAX_ACTIVE_KEYS)
    return reject('key_limit_reached', {
      detail: `a source holds at most ${MAX_ACTIVE_KEYS} active keys; retire one first`,
    });
  const generation = state.keys.reduce((max, k) => Math.max(max, k.generation), 0) + 1;
  const { tenant, sourceId, keyId, actor, at } = command;
  return [{ type: 'SourceKeyAdded', data: { tenant, sourceId, keyId, generation, at, actor } }];
}

/** Retiring a retired key changes nothing: []. */
export function retireSourceKey(command: RetireSourceKey, state: SourceState): SourceDecision {
  if (state.status === 'absent') return reject('not_found');
  const key = state.keys.find((k) => k.keyId === command.keyId);
  if (!key) return reject('not_found', { detail: 'No such key.' });
  if (key.retired) return [];
  const { tenant, sourceId, keyId, actor, at } = command;
  return [{ type: 'SourceKeyRetired', data: { tenant, sourceId, keyId, generation: key.generation, at, actor } }];
}

export function decideSource(command: SourceCommand, state: SourceState): SourceDecision {
  switch (command.type) {
    case 'ReviseSource':
      return reviseSource(command, state);
    case 'AddSourceKey':
      return addSourceKey(command, state);
    case 'RetireSourceKey':
      return retireSourceKey(command, state);
    default: {
      const _: never = command;
      throw new IllegalStateError('unknown source command');
    }
  }
}

export const sourceDecider: Decider<SourceState, SourceEvent, SourceCommand> = {
  initialState: initialSourceState,
  evolve: evolveSource,
  decide: decideSource,
};
