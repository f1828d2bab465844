import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/storage/db/client.js';
import { Cluster, createTimers, deliveryReport, settledDeliveryReport, sleep } from '../helpers/cluster.js';
import { GaleraCluster } from '../helpers/galera.js';
import { Sink } from '../helpers/sink.js';
import { eventually, REDIS_URL, TEST_ENV, uniqueName } from '../helpers/stores.js';

/**
 * xtimer on a 3-node MariaDB Galera cluster started for this test on free ports, every
 * node listed in MYSQL_URL. Both processes write through the first node; it is killed
 * mid-run, they move on to the next, it comes back by incremental state transfer, and
 * every run is delivered once and recorded as finished. Then the node they moved to is
 * cut off from the others while it keeps running (it loses quorum and refuses
 * statements), and they leave it too.
 */
const name = uniqueName('galera');
let galera: GaleraCluster;
let sink: Sink;
let xtimer: Cluster;
let scratch: Database | undefined;
let idle: Database | undefined;
let clusterStartMs = 0;

/**
 * 20 every-second timers (fire_all: a late run still fires), once `windowMs` of their runs
 * have all arrived: the ids, and when their first judged run was due.
 */
async function firing(windowMs: number): Promise<{ ids: number[]; from: number }> {
  const ids = await createTimers(xtimer.api(), 20, {
    callback: { url: sink.url() },
    misfirePolicy: 'fire_all',
    misfireThresholdMs: 300_000,
  });
  const from = Math.ceil(Date.now() / 1000) * 1000 + 3000;
  await sleep(from + windowMs + 2000 - Date.now());
  expect(deliveryReport(sink, ids, from, from + windowMs).missing).toEqual([]);
  return { ids, from };
}

/** Runs of `ids` due in [from, to) not yet finished, as `node` holds them. */
async function openRuns(node: number, ids: readonly number[], from: number, to: number): Promise<number> {
  const [row] = await galera.query<{ open: number }>(
    node,
    `SELECT COUNT(*) AS open FROM ${name}.tasks WHERE timer_id IN (${ids.join(',')})
       AND run_at >= FROM_UNIXTIME(${from / 1000}) AND run_at < FROM_UNIXTIME(${to / 1000})
       AND status IN ('pending', 'running')`,
  );
  return Number(row?.open);
}

beforeAll(async () => {
  const t0 = Date.now();
  galera = new GaleraCluster(3);
  await galera.start();
  clusterStartMs = Date.now() - t0;
  console.log(`galera: 3 nodes synced in ${clusterStartMs} ms (per node ${galera.timings.join(', ')} ms)`);
  sink = await new Sink().start();
  xtimer = await new Cluster(
    {
      ...TEST_ENV,
      MYSQL_URL: galera.url(name),
      REDIS_URL,
      XTIMER_PREFIX: `${name}:`,
      LOG_LEVEL: 'info',
    },
    2,
  ).start();
}, 150_000);

afterAll(async () => {
  await xtimer?.stopAll('SIGKILL');
  await scratch?.close().catch(() => undefined);
  await idle?.close().catch(() => undefined);
  await sink?.stop();
  await galera?.stop();
  const redis = new Redis(REDIS_URL);
  for (const match of [`${name}:*`, `{${name}}:*`, `{${name}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
  await redis.quit();
}, 60_000);

const hostOf = (i: number) => `127.0.0.1:${galera.nodes[i]!.port}`;

describe('on a 3-node Galera cluster', () => {
  it('retries a transaction whose commit lost a certification conflict with another node', async () => {
    const db = `${name}_cert`;
    await galera.query(1, `CREATE DATABASE ${db}`);
    await galera.query(1, `CREATE TABLE ${db}.counter (id INT PRIMARY KEY, n INT NOT NULL)`);
    await galera.query(1, `INSERT INTO ${db}.counter VALUES (1, 0)`);
    // Node 1 returns once it has committed; node 0 applies the writes a moment later.
    await eventually(
      async () => (await galera.query(0, `SELECT n FROM ${db}.counter WHERE id = 1`)).length === 1,
      'node 0 has applied the row',
      10_000,
    );
    scratch = openDatabase(galera.url(db), { connectionLimit: 2 });
    const other = await mysql.createConnection({
      host: '127.0.0.1',
      port: galera.nodes[1]!.port,
      user: 'root',
    });
    let tries = 0;
    try {
      await scratch.transaction(async (tx) => {
        tries++;
        await tx.conn.query('UPDATE counter SET n = n + 1 WHERE id = 1');
        // Node 1 commits a change to the same row first: node 0's commit fails certification.
        if (tries === 1) await other.query(`UPDATE ${db}.counter SET n = n + 10 WHERE id = 1`);
      });
    } finally {
      await other.end();
    }
    expect(tries).toBe(2);
    const [rows] = await scratch.pool.query('SELECT n FROM counter WHERE id = 1');
    expect(rows).toEqual([{ n: 11 }]);
  });

  it('fires every run once and records it, through the loss of the node in use and its return', {
    timeout: 120_000,
  }, async () => {
    // Each process has two pools, its api thread's and its roles thread's: both start on the first host.
    for (const p of xtimer.procs) {
      const pools = perThread(p.logs('MySQL host in use'));
      expect(pools).toHaveLength(2);
      for (const lines of pools) expect(lines.map((l) => l.host)).toEqual([hostOf(0)]);
    }

    // Late runs still fire (fire_all, 5 min): one whose result the dead node took with it is settled again.
    const { ids, from } = await firing(4000);

    galera.kill(0);
    const killedAt = Date.now();
    await eventually(
      () => xtimer.procs.every((p) => perThread(p.logs('MySQL host failed; moved to the next')).length === 2),
      'both pools of both processes moved off the dead node',
      30_000,
      100,
    );
    const movedMs = Date.now() - killedAt;
    await galera.untilClusterSize(2, 30_000, 1);
    const rejoinStart = Date.now();
    await galera.restart(0);
    const rejoinMs = Date.now() - rejoinStart;
    await galera.untilClusterSize(3, 30_000, 1);
    const rejoinLog = galera.nodes[0]!.log.join('');
    expect(rejoinLog).toContain('IST received');
    // Only the writes it missed, not a copy of the whole data dir.
    expect(rejoinLog).not.toContain('rsync SST completed');
    await sleep(5000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;

    const report = await settledDeliveryReport(sink, ids, from, to, 60_000, 500);
    console.log(
      `galera: both processes off the killed node in ${movedMs} ms; it rejoined by IST in ${rejoinMs} ms; ` +
        `expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `duplicates=${report.duplicates.length}`,
    );
    expectEachOnce(report, xtimer.output(), `killed at ${new Date(killedAt).toISOString()}`);

    // One writer at a time: both moved to the next node and stayed there after the first came back.
    for (const p of xtimer.procs) {
      for (const lines of perThread(p.logs('MySQL host failed; moved to the next')))
        expect(lines.map((l) => l.host)).toEqual([hostOf(1)]);
    }

    // Every run of the judged span is finished in MySQL, as each node holds it.
    const open = (node: number) => openRuns(node, ids, from, to);
    await eventually(async () => (await open(1)) === 0, 'every run terminal', 60_000, 500);
    await eventually(async () => (await open(0)) === 0, 'the same on the node that came back', 10_000, 200);
    const [{ total }] = (await galera.query<{ total: number }>(
      0,
      `SELECT COUNT(*) AS total FROM ${name}.tasks WHERE timer_id IN (${ids.join(',')})
         AND run_at >= FROM_UNIXTIME(${from / 1000}) AND run_at < FROM_UNIXTIME(${to / 1000})`,
    )) as [{ total: number }];
    expect(Number(total)).toBe(report.expected);
  });

  it('leaves a node that lost quorum but still takes connections, and fires every run once', {
    timeout: 120_000,
  }, async () => {
    type Move = { host: string; from: string; code: string; thread?: string };
    const moves = (i: number) => xtimer.procs[i]!.logs('MySQL host failed; moved to the next') as Move[];
    // Where both processes write now: the node the kill above moved them to.
    const inUse = galera.nodes.findIndex((n) => hostOf(n.index) === (moves(0).at(-1)?.host ?? hostOf(0)));
    const next = (inUse + 1) % galera.nodes.length;
    for (const p of xtimer.procs.keys()) expect(moves(p).at(-1)?.host ?? hostOf(0)).toBe(hostOf(inUse));

    // A pool that sends nothing: only its periodic check can find the node out of quorum.
    const idleMoves: Array<Move & { wsrep_cluster_status?: string }> = [];
    idle = openDatabase(
      galera.url(name),
      { connectionLimit: 1 },
      {
        firstHost: inUse,
        hostCheckMs: 500,
        log: { info: () => undefined, warn: (fields) => idleMoves.push(fields as Move) },
      },
    );
    await idle.pool.query('SELECT 1');

    const { ids, from } = await firing(3000);

    await galera.isolate(inUse);
    const isolatedAt = Date.now();
    const left = (list: Move[]) => list.some((m) => m.from === hostOf(inUse));
    await eventually(
      () => xtimer.procs.every((_, i) => perThread(moves(i)).filter(left).length === 2) && left(idleMoves),
      'both processes and the idle pool left the node out of quorum',
      30_000,
      100,
    );
    const movedMs = Date.now() - isolatedAt;
    await galera.untilClusterSize(2, 30_000, next);
    await sleep(3000);
    const rejoinStart = Date.now();
    await galera.reconnect(inUse);
    const rejoinMs = Date.now() - rejoinStart;
    await galera.untilClusterSize(3, 30_000, next);
    await sleep(3000);
    const to = Math.floor(Date.now() / 1000) * 1000 - 2000;

    const report = await settledDeliveryReport(sink, ids, from, to, 60_000, 500);
    console.log(
      `galera: both processes off the isolated node in ${movedMs} ms (${xtimer.procs
        .map((_, i) => ('errno' in (moves(i).at(-1) ?? {}) ? 'a refused statement' : 'the check'))
        .join(', ')}); it rejoined in ${rejoinMs} ms; ` +
        `expected=${report.expected} delivered=${report.delivered} missing=${report.missing.length} ` +
        `duplicates=${report.duplicates.length}`,
    );
    expectEachOnce(report, xtimer.output(), `isolated at ${new Date(isolatedAt).toISOString()}`);

    // Each moved once, to the next node, for the node's refusal (or the check's answer).
    for (const p of xtimer.procs.keys()) {
      for (const lines of perThread(moves(p))) {
        const off = lines.filter((m) => m.from === hostOf(inUse));
        expect(off).toMatchObject([{ host: hostOf(next), code: 'WSREP_NOT_READY' }]);
      }
    }
    expect(idleMoves).toMatchObject([
      {
        host: hostOf(next),
        from: hostOf(inUse),
        code: 'WSREP_NOT_READY',
        wsrep_cluster_status: 'non-Primary',
      },
    ]);

    const open = (node: number) => openRuns(node, ids, from, to);
    await eventually(async () => (await open(next)) === 0, 'every run terminal', 60_000, 500);
    await eventually(
      async () => (await open(inUse)) === 0,
      'the same on the node that was cut off',
      10_000,
      200,
    );
  });
});

/** Every run delivered once; otherwise the processes' warnings are printed first, to say why. */
/** A process's log lines of one kind, for each of its threads (the api's, the other roles'). */
function perThread<T extends { thread?: string }>(lines: T[]): T[][] {
  const threads = new Map<string, T[]>();
  for (const line of lines) {
    const thread = line.thread ?? 'api';
    threads.set(thread, [...(threads.get(thread) ?? []), line]);
  }
  return [...threads.values()];
}

function expectEachOnce(
  report: { missing: unknown[]; duplicates: unknown[] },
  output: string,
  fault: string,
): void {
  if (report.missing.length > 0 || report.duplicates.length > 0) {
    const said = output.split('\n').filter((line) => /"level":"(warn|error)"/.test(line));
    console.log(`galera: ${fault}; warnings:\n${said.slice(-100).join('\n')}`);
  }
  expect(report.missing).toEqual([]);
  expect(report.duplicates).toEqual([]);
}
