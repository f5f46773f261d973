import { definition } from '../occurrence/occurrence.fixtures.js';
import type { TriggerDefinition } from '../trigger/trigger-definition.js';
import { revised, schedule } from './trigger-revisions.fixtures.js';
import type { TriggerEvent } from '../trigger/trigger.js';
import { activationBoundary, activationOf, firstInstantAfter } from './activation.js';
import { minutely, t } from './materialization.fixtures.js';

const deleted = (revision: number, at: string): TriggerEvent => ({
  type: 'TriggerDeleted',
  data: { tenant: 'acme', triggerId: 't-1', revision, reason: '', actor: 'a', at },
});

describe('SC-3 schedule revision epoch and SC-5 activation', () => {
  it('creation starts epoch 1 activated at the revision time', () => {
    expect(activationOf([revised(1, t('00:00'), schedule())])).toMatchObject({
      epoch: 1,
      activation: 1,
      activatedAt: t('00:00'),
    });
  });

  it('a revision that leaves the schedule block alone keeps the epoch and the activation', () => {
    const events = [
      revised(1, t('00:00'), schedule()),
      revised(
        2,
        t('00:10'),
        schedule({ overlap: 'skip', constraints: { ...schedule().constraints, maxConcurrent: 1 } }),
      ),
    ];
    expect(activationOf(events)).toMatchObject({ epoch: 1, activation: 1, activatedAt: t('00:00') });
  });

  it('a changed schedule block starts a new epoch at that revision', () => {
    const events = [
      revised(1, t('00:00'), schedule()),
      revised(2, t('00:10'), schedule({ schedule: minutely({}, { expression: '*/5 * * * *' }) })),
    ];
    expect(activationOf(events)).toMatchObject({ epoch: 2, activation: 2, activatedAt: t('00:10') });
  });

  it('disabling keeps the activation; enabling again activates anew within the same epoch', () => {
    const off = [revised(1, t('00:00'), schedule()), revised(2, t('00:10'), schedule({ enabled: false }))];
    expect(activationOf(off)).toMatchObject({ epoch: 1, activation: 1 });
    expect(activationOf([...off, revised(3, t('00:20'), schedule())])).toMatchObject({
      epoch: 1,
      activation: 3,
      activatedAt: t('00:20'),
    });
  });

  it('a Trigger re-created after deletion starts a new epoch', () => {
    const events = [revised(1, t('00:00'), schedule()), deleted(2, t('00:05')), revised(3, t('00:06'), schedule())];
    expect(activationOf(events)).toMatchObject({ epoch: 3, activation: 3, activatedAt: t('00:06') });
  });

  it('a Trigger that is no longer a schedule has no activation; becoming one again is a new epoch', () => {
    const events = [revised(1, t('00:00'), schedule()), revised(2, t('00:05'), definition())];
    expect(activationOf(events)).toBeNull();
    expect(activationOf([...events, revised(3, t('00:06'), schedule())])).toMatchObject({ epoch: 3, activation: 3 });
  });

  it('the activation boundary never moves back before an already decided instant (SC-7)', () => {
    expect(activationBoundary(t('00:10'), null)).toBe(t('00:10'));
    expect(activationBoundary(t('00:10'), t('00:12'))).toBe(t('00:12'));
    expect(activationBoundary(t('00:10'), t('00:08'))).toBe(t('00:10'));
    expect(firstInstantAfter(minutely(), t('00:10'))).toBe(t('00:11'));
    expect(firstInstantAfter(minutely({}, { end: t('00:10') }), t('00:10'))).toBeNull();
  });
});
