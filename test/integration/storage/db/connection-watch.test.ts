import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionLog } from '../../../../src/observability/connection-log.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { type Database, openDatabase, watchConnections } from '../../../../src/storage/db/client.js';
import { createTestStores, MYSQL_SERVER, type TestStores } from '../../../helpers/stores.js';
import { TcpProxy } from '../../../helpers/tcp-proxy.js';

/**
 * The pool tells the process's MySQL connection log when it cannot open a connection
 * (MySQL is away) and when it opens one again: one line each, however many queries fail.
 */
let stores: TestStores;
let proxy: TcpProxy;
let db: Database;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  stores = await createTestStores('connwatch');
  const server = new URL(MYSQL_SERVER);
  proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  const url = `mysql://root@127.0.0.1:${proxy.port}/${stores.name}`;
  db = openDatabase(url, { connectionLimit: 2 });
  const logger = createLogger('info', {}, { write: (s: string) => lines.push(JSON.parse(s)) });
  watchConnections(db, new ConnectionLog(logger, { store: 'MySQL', setting: 'MYSQL_URL', url }));
});
afterAll(async () => {
  await db.close().catch(() => undefined);
  await proxy.stop();
  await stores.cleanup();
});

describe('the pool watched by a connection log', () => {
  it('says nothing while MySQL answers', async () => {
    await db.pool.query('SELECT 1');
    expect(lines).toEqual([]);
  });

  it('says once that MySQL is unreachable, and once that it is reachable again', async () => {
    proxy.cut();
    for (let i = 0; i < 5; i++) await expect(db.pool.query('SELECT 1')).rejects.toThrow();
    expect(lines.map((l) => l.msg)).toEqual(['MySQL at MYSQL_URL is unreachable']);
    expect(lines[0]).toMatchObject({ level: 'warn', setting: 'MYSQL_URL' });

    proxy.restore();
    const [rows] = await db.pool.query('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
    expect(lines.map((l) => l.msg)).toEqual([
      'MySQL at MYSQL_URL is unreachable',
      'MySQL at MYSQL_URL is reachable again',
    ]);
  });
});
