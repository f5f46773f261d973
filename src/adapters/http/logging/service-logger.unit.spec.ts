import { jest } from '@jest/globals';
import { ServiceLogger } from './service-logger.js';

function captured(run: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const write = (chunk: string | Uint8Array) => (lines.push(String(chunk)), true);
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(write);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(write);
  try {
    run();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('OP-4 service log lines (REVEILLE_LOG_LEVEL)', () => {
  it('at info: one JSON object per line; Nest wiring and debug lines are left out', () => {
    const logger = new ServiceLogger('info');
    const lines = captured(() => {
      logger.log('Mapped {/v1/missions/:missionId, PUT} route', 'RouterExplorer');
      logger.log('AppModule dependencies initialized', 'InstanceLoader');
      logger.debug({ msg: 'decided' }, 'Admission');
      logger.log({ msg: 'request', status: 200 }, 'Http');
      logger.error('500 internal_error request r-1', 'Problems');
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'log', context: 'Http', message: { msg: 'request', status: 200 } }),
      expect.objectContaining({ level: 'error', context: 'Problems' }),
    ]);
  });

  it('at debug: wiring lines and decisions are written, as debug', () => {
    const logger = new ServiceLogger('debug');
    const lines = captured(() => {
      logger.log('AppModule dependencies initialized', 'InstanceLoader');
      logger.debug({ msg: 'decided' }, 'Admission');
    });
    expect(lines.map((line) => [line.level, line.context])).toEqual([
      ['debug', 'InstanceLoader'],
      ['debug', 'Admission'],
    ]);
  });

  it('at warn, error and silent: only what is at least that severe', () => {
    const emit = (logger: ServiceLogger) =>
      captured(() => {
        logger.log({ msg: 'request' }, 'Http');
        logger.warn('slow', 'Wakeups');
        logger.error('boom', 'Problems');
      }).map((line) => line.level);
    expect(emit(new ServiceLogger('warn'))).toEqual(['warn', 'error']);
    expect(emit(new ServiceLogger('error'))).toEqual(['error']);
    expect(emit(new ServiceLogger('silent'))).toEqual([]);
  });
});
