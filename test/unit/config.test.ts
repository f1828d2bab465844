import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, threadsOf } from '../../src/config.js';
import { ROLES } from '../../src/setting-specs.js';
import { clusterTarget, sentinelTarget } from '../../src/storage/redis/connection.js';

/** Settings come from the environment, validated at start, failing with the setting's name. */

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

  it('writes logs pretty to a terminal and JSON to anything else, unless LOG_FORMAT says', () => {
    const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
    try {
      Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
      expect(loadConfig({}).logFormat).toBe('pretty');
      expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
      Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true });
      expect(loadConfig({}).logFormat).toBe('json');
      expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    } finally {
      if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
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
    ['LOG_FORMAT', { LOG_FORMAT: 'yaml' }],
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

describe('a Redis Cluster in the settings', () => {
  it('takes a cluster URL in REDIS_URL, with its user, password and TLS', () => {
    const url = 'rediss+cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2:7001';
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    expect(clusterTarget(url)).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      username: 'app',
      password: 's@cret',
      tls: true,
    });
    expect(clusterTarget('redis://127.0.0.1:6379')).toBeNull();
  });

  it('builds the cluster URL from REDIS_CLUSTER_NODES and REDIS_URL’s credentials', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://:pw@ignored:6379',
      REDIS_CLUSTER_NODES: 'a:7000,b:7001',
    });
    expect(config.redisUrl).toBe('redis+cluster://:pw@a:7000,b:7001');
    expect(clusterTarget(config.redisUrl)).toMatchObject({
      nodes: [{ host: 'a' }, { host: 'b' }],
      password: 'pw',
    });
  });

  it('refuses a cluster URL without host:port nodes, and a node list that is not one', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://10.0.0.1' })).toThrow(/REDIS_URL.*not a host:port/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:7000;b:7001' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => loadConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL/);
  });

  it('refuses cluster nodes beside a Sentinel URL, naming both settings', () => {
    expect(() =>
      loadConfig({ REDIS_URL: 'redis+sentinel://s1:26379/main', REDIS_CLUSTER_NODES: 'a:7000,b:7001' }),
    ).toThrow(/REDIS_CLUSTER_NODES: REDIS_URL names a master through Sentinels/);
  });
});

describe('Redis Sentinel in the settings', () => {
  it('takes a Sentinel URL in REDIS_URL as it is', () => {
    const url = 'rediss+sentinel://app:s%40cret@10.0.0.1:26379,[fd00::2]:26379/mymaster';
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    expect(sentinelTarget(url)).toMatchObject({ name: 'mymaster', password: 's@cret', tls: true });
  });

  it('says what a Sentinel URL lacks, naming REDIS_URL and the form it reads', () => {
    const problem = (url: string) => {
      try {
        loadConfig({ REDIS_URL: url });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems.join('\n');
      }
      return expect.unreachable();
    };
    expect(problem('redis+sentinel://10.0.0.1:26379,10.0.0.2:26379')).toMatch(
      /^REDIS_URL: .*redis\+sentinel:\/\/host:port,host:port\/master-name.*names no master/,
    );
    expect(problem('redis+sentinel://10.0.0.1:26379,10.0.0.2:99999/m')).toMatch(
      /^REDIS_URL: .*"10\.0\.0\.2:99999" is not a host:port/,
    );
  });

  it("takes the Sentinels' password in the query, and names REDIS_URL when the query is wrong", () => {
    const url = 'redis+sentinel://:m@h1:26379,h2:26379/main?sentinelPassword=s%40nt';
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://h1:26379/main?sentinelpassword=x' })).toThrow(
      /REDIS_URL: .*may set only sentinelUsername and sentinelPassword, not "sentinelpassword"/,
    );
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://h1:26379/main?sentinelUsername=w' })).toThrow(
      /REDIS_URL: .*sentinelUsername needs sentinelPassword/,
    );
  });

  it('never shows the password of a bad Sentinel URL', () => {
    for (const url of [
      'redis+sentinel://app:hunter2@h1:26379',
      'redis+sentinel://app:hunter2%zz@h1:26379/m',
      'redis+sentinel://h1:26379/m?sentinelPassword=hunter2%zz',
      'redis+sentinel://h1:26379/m?sentinelPassword=hunter2&sentinelPassword=hunter2',
      'redis+sentinel://h1:26379/m?hunter2',
      'redis+sentinel://h1:26379/m?hunter2%21=x',
    ])
      expect(() => loadConfig({ REDIS_URL: url })).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
      );
  });
});

describe('threadsOf', () => {
  it('gives the api the main thread and the other roles a thread of their own', () => {
    const config = loadConfig({ METRICS_PORT: '9464' });
    const { main, thread } = threadsOf(config);
    expect(main.roles).toEqual(['api']);
    expect(thread?.roles).toEqual(ROLES.filter((r) => r !== 'api'));
    // The api's /metrics carries the thread's figures: the thread serves none itself.
    expect(thread?.metricsPort).toBeUndefined();
  });

  it('keeps one thread when API_THREAD=shared, when there is no api, or when there is nothing beside it', () => {
    for (const env of [
      { API_THREAD: 'shared' },
      { XTIMER_ROLES: 'trigger,executor' },
      { XTIMER_ROLES: 'api' },
    ]) {
      const config = loadConfig(env);
      expect(threadsOf(config)).toEqual({ main: config, thread: null });
    }
  });

  it('names the setting when its value is not one it knows', () => {
    expect(() => loadConfig({ API_THREAD: 'split' })).toThrow(/API_THREAD/);
  });
});
