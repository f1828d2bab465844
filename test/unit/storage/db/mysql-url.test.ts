import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';
import { isConnectionFailure, parseMysqlUrl } from '../../../../src/storage/db/mysql-url.js';

describe('parseMysqlUrl', () => {
  it('reads one host as before', () => {
    expect(parseMysqlUrl('mysql://root@127.0.0.1:3306/xtimer')).toEqual({
      hosts: [{ host: '127.0.0.1', port: 3306 }],
      user: 'root',
      password: '',
      database: 'xtimer',
    });
  });

  it('reads a comma-separated host list in order, with the default port where none is given', () => {
    expect(parseMysqlUrl('mysql://app:p%40ss@db1:3307,db2,[::1]:3309/timers')).toEqual({
      hosts: [
        { host: 'db1', port: 3307 },
        { host: 'db2', port: 3306 },
        { host: '::1', port: 3309 },
      ],
      user: 'app',
      password: 'p@ss',
      database: 'timers',
    });
  });

  it('rejects an empty host, a bad port and another scheme', () => {
    expect(() => parseMysqlUrl('mysql://root@db1:3306,,db2/x')).toThrow();
    expect(() => parseMysqlUrl('mysql://root@db1:3306,db2:port/x')).toThrow();
    expect(() => parseMysqlUrl('postgres://root@db1/x')).toThrow();
  });
});

describe('MYSQL_URL with several hosts', () => {
  it('is accepted as it is written', () => {
    const url = 'mysql://app:secret@db1:3306,db2:3306,db3:3306/xtimer';
    expect(loadConfig({ MYSQL_URL: url }).mysqlUrl).toBe(url);
  });

  it('must still name a database', () => {
    expect(() => loadConfig({ MYSQL_URL: 'mysql://root@db1:3306,db2:3306' })).toThrow(/MYSQL_URL/);
  });
});

describe('isConnectionFailure', () => {
  it('counts a refused, reset or lost connection, not an SQL error', () => {
    expect(isConnectionFailure({ code: 'ECONNREFUSED' })).toBe(true);
    expect(isConnectionFailure({ code: 'PROTOCOL_CONNECTION_LOST' })).toBe(true);
    expect(isConnectionFailure({ code: 'ER_NO_SUCH_TABLE', errno: 1146 })).toBe(false);
    expect(isConnectionFailure({ code: 'ER_LOCK_DEADLOCK', errno: 1213 })).toBe(false);
  });
});
