/**
 * Footprint: what 100,000 active timers of a realistic mix cost at rest, in
 * Redis and in MySQL, with the default planning window (MIGRATE_STEP_MINUTES 60): 70%
 * hourly at their own minute (`H * * * *`), 25% daily (`H H * * *`), 5% every minute.
 */
import mysql from 'mysql2/promise';
import { type KeyBytes, keyBytes, MYSQL_SERVER, pendingSliceRuns, redisInfo, sleep } from './harness.js';
import { createTimerBatches, launchXtimer } from './targets.js';

export interface FootprintResult {
  timers: number;
  pendingRuns: number;
  redisBytesPerTimer: number;
  /** All of xtimer's Redis data over the runs planned in the slices. */
  redisBytesPerRun: number;
  mysqlBytesPerTimer: number;
  taskRows: number;
  /** MEMORY USAGE of this xtimer's keys, over the timers, in all and by kind (slice, timer, claim…). */
  keyBytesPerTimer: number;
  keyBytesPerTimerByKind: Record<string, number>;
  keysByKind: Record<string, number>;
  /** The same after `lingerMinutes` more minutes of firing: what walked minutes leave behind. */
  lingered?: { minutes: number; keyBytesPerTimer: number; keyBytesPerTimerByKind: Record<string, number> };
}

const perTimer = (bytes: Record<string, number>, timers: number) =>
  Object.fromEntries(Object.entries(bytes).map(([k, b]) => [k, Math.round(b / timers)]));

function printKeys(k: KeyBytes, timers: number): void {
  const s = k.slices;
  process.stdout.write(
    `  Redis keys: ${Math.round(k.total / timers)} B/timer by MEMORY USAGE; by kind ${JSON.stringify(perTimer(k.byKind, timers))}\n` +
      `  keys by kind ${JSON.stringify(k.keysByKind)}; slices of past minutes ${s.pastKeys} keys ` +
      `${Math.round(s.pastBytes / timers)} B/timer, ahead ${s.aheadKeys} keys ${Math.round(s.aheadBytes / timers)} B/timer; ` +
      `${k.skiplists.keys} past the compact encoding, holding ${k.skiplists.runs} runs\n`,
  );
}

/**
 * Waits for the top-up that follows the next minute's start (it plans the rest of the
 * window for timers planned near-term at creation), then until the runs in the slices
 * stop changing.
 */
export async function plannedRuns(prefix: string, capMs: number): Promise<number> {
  await sleep(Math.ceil(Date.now() / 60_000) * 60_000 + 15_000 - Date.now());
  const deadline = Date.now() + capMs;
  let last = -1;
  let steadySince = Date.now();
  for (;;) {
    const now = await pendingSliceRuns(prefix);
    if (now !== last) {
      last = now;
      steadySince = Date.now();
    }
    if (Date.now() - steadySince >= 20_000 || Date.now() > deadline) return now;
    process.stdout.write(`  … ${now} runs planned in Redis\n`);
    await sleep(5000);
  }
}

export async function mysqlBytes(database: string): Promise<{ bytes: number; taskRows: number }> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${database}`);
  try {
    // Fresh statistics: information_schema's sizes are InnoDB's estimates as of the last analysis.
    await conn.query('ANALYZE TABLE timers, tasks');
    const [[size]] = (await conn.query(
      'SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables WHERE table_schema = ?',
      [database],
    )) as unknown as [[{ bytes: number }]];
    const [[count]] = (await conn.query('SELECT COUNT(*) AS n FROM tasks')) as unknown as [[{ n: number }]];
    return { bytes: Number(size.bytes), taskRows: Number(count.n) };
  } finally {
    await conn.end();
  }
}

export async function footprintBench(
  timers: number,
  sinkUrl: string,
  lingerMinutes = 0,
): Promise<FootprintResult> {
  const memBefore = (await redisInfo()).usedMemory;
  const target = await launchXtimer({ env: { MIGRATE_STEP_MINUTES: '60' } });
  try {
    const mix: Array<[string, number, string]> = [
      ['fph', Math.round(timers * 0.7), 'H * * * *'],
      ['fpd', Math.round(timers * 0.25), 'H H * * *'],
      ['fpm', timers - Math.round(timers * 0.7) - Math.round(timers * 0.25), '* * * * *'],
    ];
    for (const [appPrefix, count, cron] of mix) {
      await createTimerBatches(target.base, count, cron, sinkUrl, 'active', {
        batchSize: 1000,
        clients: 4,
        appPrefix,
      });
      process.stdout.write(`  ${count} timers "${cron}" created\n`);
    }
    const pendingRuns = await plannedRuns(target.prefix, 4 * 60_000);
    const redisBytes = (await redisInfo()).usedMemory - memBefore;
    const patterns = [`${target.prefix}*`, `{${target.database}}:*`];
    const keys = await keyBytes(target.prefix, patterns);
    const { bytes, taskRows } = await mysqlBytes(target.database);
    const result: FootprintResult = {
      timers,
      pendingRuns,
      redisBytesPerTimer: Math.round(redisBytes / timers),
      redisBytesPerRun: Math.round(redisBytes / Math.max(1, pendingRuns)),
      mysqlBytesPerTimer: Math.round(bytes / timers),
      taskRows,
      keyBytesPerTimer: Math.round(keys.total / timers),
      keyBytesPerTimerByKind: perTimer(keys.byKind, timers),
      keysByKind: keys.keysByKind,
    };
    process.stdout.write(
      `  footprint: ${timers} timers (70% hourly, 25% daily, 5% every minute), ${pendingRuns} runs planned in Redis, ` +
        `${taskRows} in MySQL: Redis ${result.redisBytesPerTimer} B/timer (${result.redisBytesPerRun} B/planned run), ` +
        `MySQL ${result.mysqlBytesPerTimer} B/timer\n`,
    );
    printKeys(keys, timers);
    if (lingerMinutes > 0) {
      await sleep(lingerMinutes * 60_000);
      const later = await keyBytes(target.prefix, patterns);
      process.stdout.write(`  after ${lingerMinutes} more minutes of firing:\n`);
      printKeys(later, timers);
      result.lingered = {
        minutes: lingerMinutes,
        keyBytesPerTimer: Math.round(later.total / timers),
        keyBytesPerTimerByKind: perTimer(later.byKind, timers),
      };
    }
    return result;
  } finally {
    await target.stop();
  }
}
