import { EventEmitter } from 'node:events';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_LOG_EVERY_MS,
  ConnectionLog,
  isLostConnection,
  withoutPassword,
} from '../../../src/observability/connection-log.js';
import { createLogger } from '../../../src/observability/logger.js';

/**
 * A lost store is said once per CONNECTION_LOG_EVERY_MS whatever the number of connections
 * failing, naming its setting and its URL without the password, and once when it is back.
 */

function setUp(url = 'redis://:hunter2@cache.internal:6379') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', {}, { write: (s: string) => lines.push(JSON.parse(s)) });
  let now = 1_000_000;
  const clock = {
    advance: (ms: number) => {
      now += ms;
    },
  };
  const log = new ConnectionLog(logger, { store: 'Redis', setting: 'REDIS_URL', url }, () => now);
  return { log, lines, clock };
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6379'), { code: 'ECONNREFUSED' });

describe('ConnectionLog', () => {
  it('says at once that the store is unreachable, naming the setting and the URL without its password', () => {
    const { log, lines } = setUp();
    log.lost(refused());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: 'Redis at REDIS_URL is unreachable',
      setting: 'REDIS_URL',
      url: 'redis://:***@cache.internal:6379',
      err: 'connect ECONNREFUSED 10.0.0.5:6379',
      errors: 1,
    });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('says it at most once every 10 s however many connections fail, counting the errors between', () => {
    const { log, lines, clock } = setUp();
    log.lost(refused());
    for (let i = 0; i < 40; i++) {
      clock.advance(240);
      log.lost(refused());
    }
    expect(lines).toHaveLength(1);
    clock.advance(CONNECTION_LOG_EVERY_MS - 40 * 240);
    log.lost(refused());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      msg: 'Redis at REDIS_URL is still unreachable',
      errors: 41,
      downForMs: CONNECTION_LOG_EVERY_MS,
    });
  });

  it('says once that it is reachable again, with how long it was away', () => {
    const { log, lines, clock } = setUp();
    log.lost(refused());
    clock.advance(3_500);
    log.lost(refused());
    log.reachable();
    log.reachable();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 'info',
      msg: 'Redis at REDIS_URL is reachable again',
      url: 'redis://:***@cache.internal:6379',
      downForMs: 3_500,
    });
  });

  it('says nothing while the store answers', () => {
    const { log, lines } = setUp();
    log.reachable();
    expect(lines).toEqual([]);
  });

  it('keeps quiet about a blip within 10 s of its last line, down and back alike', () => {
    const { log, lines, clock } = setUp();
    log.lost(refused());
    clock.advance(1_000);
    log.reachable();
    clock.advance(1_000);
    log.lost(refused());
    log.reachable();
    expect(lines.map((l) => l.msg)).toEqual([
      'Redis at REDIS_URL is unreachable',
      'Redis at REDIS_URL is reachable again',
    ]);
    // Still down 10 s after the last line: said again.
    clock.advance(1_000);
    log.lost(refused());
    clock.advance(CONNECTION_LOG_EVERY_MS);
    log.lost(refused());
    expect(lines.at(-1)).toMatchObject({ msg: 'Redis at REDIS_URL is unreachable', errors: 2 });
  });

  it('takes only lost connections from report(), and leaves other errors to the caller', () => {
    const { log, lines } = setUp();
    expect(log.report(new Error('Lock mismatch for job 7'))).toBe(false);
    expect(lines).toEqual([]);
    expect(log.report(refused())).toBe(true);
    expect(lines).toHaveLength(1);
  });

  it('hears a connection: its errors and its ready', () => {
    const { log, lines } = setUp();
    const connection = new EventEmitter();
    log.watch(connection);
    connection.emit('error', new Error('WRONGPASS invalid username-password pair'));
    connection.emit('ready');
    expect(lines.map((l) => l.msg)).toEqual([
      'Redis at REDIS_URL is unreachable',
      'Redis at REDIS_URL is reachable again',
    ]);
  });
});

describe('isLostConnection', () => {
  it('knows socket errors, mysql2 fatal errors and ioredis closed connections, wrapped or not', () => {
    expect(isLostConnection(refused())).toBe(true);
    expect(isLostConnection(Object.assign(new Error('lost'), { code: 'PROTOCOL_CONNECTION_LOST' }))).toBe(
      true,
    );
    expect(isLostConnection(Object.assign(new Error('Access denied'), { fatal: true }))).toBe(true);
    expect(isLostConnection(new Error('Connection is closed.'))).toBe(true);
    expect(isLostConnection(new DrizzleQueryError('select 1', [], refused()))).toBe(true);
  });

  it('leaves out what a query or a job did wrong', () => {
    expect(isLostConnection(Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' }))).toBe(
      false,
    );
    expect(isLostConnection(new Error('Missing lock for job 3'))).toBe(false);
    expect(isLostConnection('ECONNREFUSED')).toBe(false);
  });
});

describe('withoutPassword', () => {
  it.each([
    ['redis://:hunter2@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379'],
    ['mysql://app:s3cret@db.internal:3306/xtimer', 'mysql://app:***@db.internal:3306/xtimer'],
    [
      'rediss+cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2:7001',
      'rediss+cluster://app:***@10.0.0.1:7000,10.0.0.2:7001',
    ],
    [
      'redis+sentinel://app:s%40cret@[::1]:26379,10.0.0.2:26379/mymaster',
      'redis+sentinel://app:***@[::1]:26379,10.0.0.2:26379/mymaster',
    ],
    ['redis://:p@ss:w/rd@cache:6379', 'redis://:***@cache:6379'],
    [
      'redis+sentinel://:m@h1:26379/main?sentinelUsername=w&sentinelPassword=s@nt',
      'redis+sentinel://:***@h1:26379/main?sentinelUsername=w&sentinelPassword=***',
    ],
    [
      'redis+sentinel://h1:26379/main?sentinelPassword=s%40nt',
      'redis+sentinel://h1:26379/main?sentinelPassword=***',
    ],
    ['mysql://root@127.0.0.1:3306/xtimer', 'mysql://root@127.0.0.1:3306/xtimer'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ])('shows %s as %s', (url, shown) => {
    expect(withoutPassword(url)).toBe(shown);
  });
});
