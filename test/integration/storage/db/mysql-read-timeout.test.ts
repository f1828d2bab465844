import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { createTestStores, eventually, MYSQL_SERVER, type TestStores } from '../../../helpers/stores.js';
import { TcpProxy } from '../../../helpers/tcp-proxy.js';

/**
 * A half-open connection (no reset, no answer: a failover behind a load balancer) must
 * not hold a reader for good: reads give up after their timeout, the connection is
 * dropped, and the next read on a healthy link works.
 */
let stores: TestStores;
let proxy: TcpProxy;
let db: Database;

beforeAll(async () => {
  stores = await createTestStores('readtimeout');
  const server = new URL(MYSQL_SERVER);
  proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  db = openDatabase(
    `mysql://root@127.0.0.1:${proxy.port}/${stores.name}`,
    { connectionLimit: 2 },
    { readTimeoutMs: 500 },
  );
});
afterAll(async () => {
  await db.close().catch(() => undefined);
  await proxy.stop();
  await stores.cleanup();
});

describe('a read over a half-open connection', () => {
  it('fails after the read timeout, and reads work again once the link does', async () => {
    await db.pool.query('SELECT 1');
    proxy.freeze();
    const started = Date.now();
    await expect(db.pool.query('SELECT COUNT(*) FROM timers')).rejects.toThrow('Query inactivity timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    proxy.restore();
    const [rows] = await db.pool.query('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('bounds drizzle reads on the pool too', async () => {
    proxy.freeze();
    const { timers } = await import('../../../../src/storage/db/schema.js');
    await expect(db.db.select().from(timers)).rejects.toMatchObject({
      cause: expect.objectContaining({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' }),
    });
    proxy.restore();
  });

  it('bounds a read by its own timeout where it gives one, and drops that connection too', async () => {
    await db.pool.query('SELECT 1');
    proxy.freeze();
    const started = Date.now();
    await expect(db.pool.query({ sql: 'SELECT COUNT(*) FROM timers', timeout: 1500 })).rejects.toThrow(
      'Query inactivity timeout',
    );
    // Longer than the pool's 500 ms: the read's own bound held it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    proxy.restore();
    for (let i = 0; i < 3; i++) {
      const [rows] = await db.pool.query('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    }
  });
});

describe('a read that outlasts its timeout on a working link', () => {
  it('is stopped on the server too, not left running there', async () => {
    const direct = openDatabase(
      `${MYSQL_SERVER}/${stores.name}`,
      { connectionLimit: 2 },
      { readTimeoutMs: 300 },
    );
    // Ten billion rows: it would run for minutes, and reads nothing a dropped link would stop.
    const marker = `slow_${stores.name}`;
    const slow = `SELECT COUNT(*) AS ${marker} FROM seq_1_to_100000 a, seq_1_to_100000 b`;
    const running = async () => {
      const [rows] = await stores.database.pool.query(
        'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()',
        [`%${marker}%`],
      );
      return Number((rows as Array<{ n: number }>)[0]!.n);
    };
    try {
      await expect(direct.pool.query(slow)).rejects.toThrow('Query inactivity timeout');
      await eventually(async () => (await running()) === 0, 'the slow read gone from the server', 5000);
    } finally {
      await direct.close();
    }
  });
});
