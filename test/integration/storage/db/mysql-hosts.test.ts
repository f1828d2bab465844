import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../../src/storage/db/client.js';
import { prepareDatabase } from '../../../../src/storage/db/migrate.js';
import { freePort } from '../../../helpers/processes.js';
import { createTestStores, MYSQL_SERVER, type TestStores } from '../../../helpers/stores.js';
import { TcpProxy } from '../../../helpers/tcp-proxy.js';

/**
 * A MYSQL_URL naming several hosts: xtimer uses one at a time and moves on to the next
 * when connections to it fail. Here the hosts are a port nothing listens on and two
 * proxies in front of the one local MariaDB, each of which a test can cut.
 */
let stores: TestStores;
let a: TcpProxy;
let b: TcpProxy;
let deadPort: number;
let url: string;
let db: Database | undefined;
const lines: Array<{ level: string; msg: string; host?: string; from?: string }> = [];
const log = {
  info: (fields: object, msg: string) => lines.push({ level: 'info', msg, ...fields }),
  warn: (fields: object, msg: string) => lines.push({ level: 'warn', msg, ...fields }),
};

interface PoolInternals {
  _allConnections: { toArray(): Array<{ config: { port: number } }> };
}
const openPorts = (d: Database) =>
  (d.pool.pool as unknown as PoolInternals)._allConnections.toArray().map((c) => c.config.port);

beforeAll(async () => {
  stores = await createTestStores('mysqlhosts');
  const server = new URL(MYSQL_SERVER);
  a = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  b = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  deadPort = await freePort();
  url = `mysql://root@127.0.0.1:${deadPort},127.0.0.1:${a.port},127.0.0.1:${b.port}/${stores.name}`;
});
afterAll(async () => {
  await db?.close().catch(() => undefined);
  await a?.stop();
  await b?.stop();
  await stores?.cleanup();
});

describe('a MYSQL_URL with several hosts', () => {
  it('prepares the database on the first host that answers and says which it was', async () => {
    expect(await prepareDatabase(url)).toBe(1);
    expect(a.accepted).toBe(1);
  });

  it('names the host in use at the start, and moves past a dead one with a line naming the next', async () => {
    db = openDatabase(url, { connectionLimit: 3 }, { firstHost: 0, log });
    expect(lines).toEqual([
      { level: 'info', msg: 'MySQL host in use', host: `127.0.0.1:${deadPort}`, hosts: 3 },
    ]);
    await expect(db.pool.query('SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await db.pool.query('SELECT 1');
    expect(lines[1]).toMatchObject({
      level: 'warn',
      host: `127.0.0.1:${a.port}`,
      from: `127.0.0.1:${deadPort}`,
      code: 'ECONNREFUSED',
    });
    expect(openPorts(db)).toEqual([a.port]);
  });

  it('stays on its host after an SQL error', async () => {
    await expect(db!.pool.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ errno: 1146 });
    await db!.pool.query('SELECT 1');
    expect(lines).toHaveLength(2);
  });

  it('stays on a plain MariaDB, which reports wsrep_ready OFF too: the Galera check asks for wsrep_on first', async () => {
    const said: object[] = [];
    const quiet = openDatabase(
      url,
      { connectionLimit: 2 },
      { firstHost: 1, hostCheckMs: 20, log: { info: () => undefined, warn: (f) => said.push(f) } },
    );
    try {
      await quiet.pool.query('SELECT 1');
      const [status] = await quiet.pool.query("SHOW GLOBAL STATUS LIKE 'wsrep_ready'");
      expect(status).toEqual([{ Variable_name: 'wsrep_ready', Value: 'OFF' }]);
      await new Promise((r) => setTimeout(r, 300));
      await quiet.pool.query('SELECT 1');
      expect(said).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('keeps a transaction on one connection, and moves on when its host goes away', async () => {
    const d = db!;
    // Several connections open and idle on host a.
    await Promise.all([1, 2, 3].map(() => d.pool.query('SELECT SLEEP(0.05)')));
    const ids = await d.transaction(async (tx) => {
      const [one] = await tx.conn.query('SELECT CONNECTION_ID() AS id');
      const [two] = await tx.conn.query('SELECT CONNECTION_ID() AS id');
      return [one, two] as Array<Array<{ id: number }>>;
    });
    expect(ids[0]?.[0]?.id).toBe(ids[1]?.[0]?.id);

    a.cut();
    // A caller may see the break; the pool is on host b by the time its callers retry.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ok = await d.pool.query('SELECT 1').then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('the pool did not move on to host b');
    }
    await d.transaction(async (tx) => {
      await tx.conn.query('SELECT 1');
    });
    expect(lines.at(-1)).toMatchObject({
      level: 'warn',
      host: `127.0.0.1:${b.port}`,
      from: `127.0.0.1:${a.port}`,
    });
    // Nothing left open to host a, and no more connections than the limit.
    expect(openPorts(d).every((p) => p === b.port)).toBe(true);
    expect(openPorts(d).length).toBeLessThanOrEqual(3);
  });

  it('goes round the list: past the end it starts again from the first host', async () => {
    const d = db!;
    a.restore();
    b.cut();
    const deadline = Date.now() + 10_000;
    while (
      !(await d.pool.query('SELECT 1').then(
        () => true,
        () => false,
      ))
    )
      if (Date.now() > deadline) throw new Error('the pool did not come back round to host a');
    expect(lines.slice(-2).map((l) => l.host)).toEqual([`127.0.0.1:${deadPort}`, `127.0.0.1:${a.port}`]);
    expect(openPorts(d).every((p) => p === a.port)).toBe(true);
  });
});
