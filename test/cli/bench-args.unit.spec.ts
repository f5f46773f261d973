import { benchArgs, BenchUsage } from '../../bench/bench-args.js';

/** What `reveille bench <name> …` refuses before anything starts (one line, exit 2: bench/main.ts). */
describe('bench options are checked before a benchmark starts', () => {
  const manual = (args: string[]) => {
    const given = benchArgs('manual', args, { values: ['--seconds', '--connections'] });
    return {
      seconds: given.number('--seconds', 5, { min: 1 }),
      connections: given.number('--connections', 16, { min: 1, integer: true }),
    };
  };
  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(BenchUsage);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it.each([
    [['--seconds', 'abc'], '--seconds needs a number of at least 1, not "abc"'],
    [['--seconds', ''], '--seconds needs a number of at least 1, not ""'],
    [['--seconds', 'Infinity'], '--seconds needs a number of at least 1, not "Infinity"'],
    [['--connections', '1.5'], '--connections needs a whole number of at least 1, not "1.5"'],
    [['--bogus', '1'], 'unknown option "--bogus"; manual takes --seconds --connections'],
    [['stray'], 'unknown argument "stray"; manual takes --seconds --connections'],
    [['--seconds'], '--seconds needs a value'],
    [['--seconds', '--connections', '2'], '--seconds needs a value'],
    [['--seconds', '5', '--seconds', '6'], '--seconds is given twice'],
  ])('%j is refused: %s', (args, message) => {
    expect(refusal(() => manual(args))).toBe(message);
  });

  it('given values are read, absent ones default, flags and repeatable options are told apart', () => {
    expect(manual(['--seconds', '2.5', '--connections', '4'])).toEqual({ seconds: 2.5, connections: 4 });
    expect(manual([])).toEqual({ seconds: 5, connections: 16 });
    const given = benchArgs('deliver', ['--modes', 'pull', '--keep', '--modes', 'redis'], {
      values: ['--modes'],
      flags: ['--keep'],
      repeatable: ['--modes'],
    });
    expect([given.all('--modes'), given.flag('--keep'), given.flag('--other')]).toEqual([
      ['pull', 'redis'],
      true,
      false,
    ]);
    expect(refusal(() => benchArgs('x', ['--keep', '--keep'], { values: [], flags: ['--keep'] }))).toBe(
      '--keep is given twice',
    );
  });
});
