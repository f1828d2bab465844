import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, ROLES } from '../../src/config.js';

/** SPEC §8: settings come from the environment, validated at start, failing with the setting's name. */

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8081,
      host: '127.0.0.1',
      mysqlUrl: 'mysql://root@127.0.0.1:3306/xtimer',
      redisUrl: 'redis://127.0.0.1:6379',
      prefix: 'xtimer:',
      roles: [...ROLES],
      buckets: 10,
      migrateStepMinutes: 60,
      callbackTimeoutMs: 5000,
      taskRetentionDays: 7,
      logLevel: 'info',
    });
    expect(config.maxBuckets).toBeGreaterThanOrEqual(config.buckets);
  });

  it('reads every given setting', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      MYSQL_URL: 'mysql://app:secret@db.internal:3307/timers',
      REDIS_URL: 'rediss://cache.internal:6380',
      XTIMER_PREFIX: 'xt-test:',
      XTIMER_ROLES: 'api, scheduler,api',
      BUCKETS: '20',
      MAX_BUCKETS: '40',
      MIGRATE_STEP_MINUTES: '30',
      CALLBACK_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      mysqlUrl: 'mysql://app:secret@db.internal:3307/timers',
      redisUrl: 'rediss://cache.internal:6380',
      prefix: 'xt-test:',
      roles: ['api', 'scheduler'],
      buckets: 20,
      maxBuckets: 40,
      migrateStepMinutes: 30,
      callbackTimeoutMs: 1500,
      logLevel: 'debug',
    });
  });

  it('treats an empty value as not set', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' })).toMatchObject({ port: 8081, logLevel: 'info' });
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ PATH: '/usr/bin', HOME: '/root' })).not.toThrow();
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['XTIMER_ROLES', { XTIMER_ROLES: 'api,bogus' }],
    ['XTIMER_ROLES', { XTIMER_ROLES: ',' }],
    ['BUCKETS', { BUCKETS: '0' }],
    ['MYSQL_URL', { MYSQL_URL: 'postgres://x' }],
    ['MYSQL_URL', { MYSQL_URL: 'mysql://root@127.0.0.1:3306' }],
    ['MYSQL_URL', { MYSQL_URL: 'mysql://root@127.0.0.1:3306/' }],
    ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
    ['XTIMER_PREFIX', { XTIMER_PREFIX: 'has spaces' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['MAX_BUCKETS', { BUCKETS: '20', MAX_BUCKETS: '10' }],
    ['CALLBACK_TIMEOUT_MS', { CALLBACK_TIMEOUT_MS: '10' }],
    ['MIGRATE_STEP_MINUTES', { MIGRATE_STEP_MINUTES: '0' }],
  ])('rejects a bad %s with a ConfigError naming it: %o', (setting, env) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(setting);
    expect((error as ConfigError).problems.some((p) => p.startsWith(`${setting}:`))).toBe(true);
  });

  it('rejects a MYSQL_URL that is not a URL with a ConfigError naming it', () => {
    expect(() => loadConfig({ MYSQL_URL: 'not a url' })).toThrow(ConfigError);
  });

  it('quotes the bad value in the message', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT.*"abc"/);
  });

  it('reports every bad setting at once', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toContain('PORT');
      expect(problems).toContain('LOG_LEVEL');
    }
  });
});
