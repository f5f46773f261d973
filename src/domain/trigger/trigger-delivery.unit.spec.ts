import { validateTriggerDefinition } from './trigger-definition.js';

const pointers = (raw: unknown) => {
  const result = validateTriggerDefinition(raw);
  return result.ok ? [] : result.errors.map((e) => e.pointer);
};

describe('EX-4/EX-5 the delivery block', () => {
  const manual = (delivery: unknown) => ({ missionId: 'm-1', type: 'manual', delivery });
  const deliveryOf = (raw: unknown) => {
    const result = validateTriggerDefinition(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.value.delivery;
  };

  describe('given a full block', () => {
    const full = {
      maxAttempts: 3,
      backoff: { initialSeconds: 0.2, multiplier: 1.5, maxSeconds: 2 },
      claimWithinSeconds: 0.5,
      maxRuntimeSeconds: 120,
      budgetUnits: 40,
    };
    it('then it is stored as given, fractional seconds included', () => expect(deliveryOf(manual(full))).toEqual(full));
  });

  describe('given no block, null, an empty block or a partial one', () => {
    const defaults = {
      maxAttempts: 5,
      backoff: { initialSeconds: 1, multiplier: 2, maxSeconds: 300 },
      claimWithinSeconds: 60,
      maxRuntimeSeconds: null,
      budgetUnits: null,
    };
    it('then every default is written out (TR-1)', () => {
      expect(deliveryOf({ missionId: 'm-1', type: 'manual' })).toEqual(defaults);
      expect(deliveryOf(manual(null))).toEqual(defaults);
      expect(deliveryOf(manual({}))).toEqual(defaults);
      expect(deliveryOf(manual({ backoff: {} }))).toEqual(defaults);
    });
    it('then only the given members differ from the defaults', () =>
      expect(deliveryOf(manual({ backoff: { initialSeconds: 0.1 }, budgetUnits: 0 }))).toEqual({
        ...defaults,
        backoff: { ...defaults.backoff, initialSeconds: 0.1 },
        budgetUnits: 0,
      }));
    it('then explicit null limits mean none declared', () =>
      expect(deliveryOf(manual({ maxRuntimeSeconds: null, budgetUnits: null }))).toEqual(defaults));
    it('then two definitions never share the default objects', () => {
      const a = deliveryOf(manual(undefined));
      const b = deliveryOf(manual(undefined));
      expect(a).not.toBe(b);
      expect(a.backoff).not.toBe(b.backoff);
      expect(Object.isFrozen(a)).toBe(false);
    });
  });

  describe('when a member is outside its bounds, then it is refused with its pointer', () => {
    it.each([
      [{ maxAttempts: 0 }, '/delivery/maxAttempts'],
      [{ maxAttempts: 101 }, '/delivery/maxAttempts'],
      [{ backoff: { initialSeconds: 0.09 } }, '/delivery/backoff/initialSeconds'],
      [{ backoff: { initialSeconds: 86_401, maxSeconds: 604_800 } }, '/delivery/backoff/initialSeconds'],
      [{ backoff: { multiplier: 0.5 } }, '/delivery/backoff/multiplier'],
      [{ backoff: { multiplier: 11 } }, '/delivery/backoff/multiplier'],
      [{ backoff: { initialSeconds: 0.1, maxSeconds: 0.05 } }, '/delivery/backoff/maxSeconds'],
      [{ backoff: { maxSeconds: 604_801 } }, '/delivery/backoff/maxSeconds'],
      [{ claimWithinSeconds: 0.09 }, '/delivery/claimWithinSeconds'],
      [{ claimWithinSeconds: 604_801 }, '/delivery/claimWithinSeconds'],
      [{ maxRuntimeSeconds: 0 }, '/delivery/maxRuntimeSeconds'],
      [{ maxRuntimeSeconds: 2_592_001 }, '/delivery/maxRuntimeSeconds'],
      [{ budgetUnits: -1 }, '/delivery/budgetUnits'],
      [{ budgetUnits: 1_000_000_001 }, '/delivery/budgetUnits'],
    ])('%j → %s', (delivery, pointer) => expect(pointers(manual(delivery))).toEqual([pointer]));
    it('accepts each bound itself', () =>
      expect(
        [
          { maxAttempts: 1 },
          { maxAttempts: 100 },
          { backoff: { initialSeconds: 0.1, maxSeconds: 0.1, multiplier: 1 } },
          { backoff: { initialSeconds: 86_400, maxSeconds: 604_800, multiplier: 10 } },
          { claimWithinSeconds: 0.1 },
          { claimWithinSeconds: 604_800 },
          { maxRuntimeSeconds: 1, budgetUnits: 0 },
          { maxRuntimeSeconds: 2_592_000, budgetUnits: 1_000_000_000 },
        ].flatMap((delivery) => pointers(manual(delivery))),
      ).toEqual([]));
    it('refuses a backoff cap below its first wait rather than silently replacing the wait', () =>
      expect(pointers(manual({ backoff: { initialSeconds: 600 } }))).toEqual(['/delivery/backoff/maxSeconds']));
  });

  describe('when a member has the wrong type, then it is refused with its pointer', () => {
    it('names every faulty member', () =>
      expect(
        pointers(
          manual({
            maxAttempts: 2.5,
            backoff: { initialSeconds: '1', multiplier: true, maxSeconds: Number.NaN },
            claimWithinSeconds: '60',
            maxRuntimeSeconds: 1.5,
            budgetUnits: '10',
          }),
        ),
      ).toEqual([
        '/delivery/maxAttempts',
        '/delivery/backoff/initialSeconds',
        '/delivery/backoff/multiplier',
        '/delivery/backoff/maxSeconds',
        '/delivery/claimWithinSeconds',
        '/delivery/maxRuntimeSeconds',
        '/delivery/budgetUnits',
      ]));
    it('refuses a block or a backoff that is not an object', () => {
      expect(pointers(manual([]))).toEqual(['/delivery']);
      expect(pointers(manual('fast'))).toEqual(['/delivery']);
      expect(pointers(manual({ backoff: 2 }))).toEqual(['/delivery/backoff']);
    });
  });

  describe('when a member is unknown, then it is refused rather than ignored', () => {
    it('in the block and in its backoff', () =>
      expect(pointers(manual({ maxAttempt: 3, backoff: { initalSeconds: 0.5 }, limits: { budgetUnits: 1 } }))).toEqual([
        '/delivery/maxAttempt',
        '/delivery/limits',
        '/delivery/backoff/initalSeconds',
      ]));
  });
});
