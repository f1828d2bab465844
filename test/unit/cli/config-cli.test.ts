import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../../src/config.js';

/** The deployment settings: --roles on the command line, dashboard credentials, the list of names. */

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('--roles', () => {
  it('takes the roles from --roles=a,b', () => {
    expect(loadConfig({}, ['--roles=api']).roles).toEqual(['api']);
    expect(loadConfig({}, ['--roles=scheduler,migrator']).roles).toEqual(['scheduler', 'migrator']);
  });

  it('takes the roles from --roles a,b', () => {
    expect(loadConfig({}, ['--roles', 'trigger,executor']).roles).toEqual(['trigger', 'executor']);
  });

  it('wins over XTIMER_ROLES', () => {
    expect(loadConfig({ XTIMER_ROLES: 'api' }, ['--roles=executor']).roles).toEqual(['executor']);
  });

  it('leaves XTIMER_ROLES in charge without arguments', () => {
    expect(loadConfig({ XTIMER_ROLES: 'api' }).roles).toEqual(['api']);
  });

  it('rejects an unknown role naming --roles', () => {
    const problems = problemsOf(() => loadConfig({}, ['--roles=api,bogus']));
    expect(problems[0]).toMatch(/^--roles: unknown role\(s\) \["bogus"\]/);
  });

  it.each([['--role=api'], ['api'], ['--roles'], ['--port=1']])(
    'rejects the unknown or incomplete argument %s instead of starting every role',
    (arg) => {
      expect(problemsOf(() => loadConfig({}, [arg]))[0]).toContain('unknown argument');
    },
  );
});

describe('dashboard credentials', () => {
  it('are absent by default', () => {
    const config = loadConfig({});
    expect(config.dashboardUser).toBeUndefined();
    expect(config.dashboardPassword).toBeUndefined();
  });

  it('are read together', () => {
    expect(loadConfig({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'pw' })).toMatchObject({
      dashboardUser: 'ops',
      dashboardPassword: 'pw',
    });
  });

  it('must be set together, naming the missing one', () => {
    expect(problemsOf(() => loadConfig({ DASHBOARD_USER: 'ops' }))[0]).toMatch(/^DASHBOARD_PASSWORD:/);
    expect(problemsOf(() => loadConfig({ DASHBOARD_PASSWORD: 'pw' }))[0]).toMatch(/^DASHBOARD_USER:/);
  });

  it('never echo the password in an error', () => {
    const long = 'x'.repeat(300);
    const problems = problemsOf(() => loadConfig({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: long }));
    expect(problems.join('\n')).toContain('DASHBOARD_PASSWORD');
    expect(problems.join('\n')).not.toContain(long);
  });
});

describe('SETTINGS', () => {
  it('names every environment variable the configuration reads', () => {
    expect(SETTINGS).toEqual(
      expect.arrayContaining([
        'PORT',
        'HOST',
        'MYSQL_URL',
        'REDIS_URL',
        'XTIMER_PREFIX',
        'XTIMER_ROLES',
        'LOG_LEVEL',
        'DASHBOARD_USER',
        'DASHBOARD_PASSWORD',
      ]),
    );
  });
});
