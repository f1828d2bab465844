/**
 * A million timers on one box: 1,000,000 active timers of the realistic mix (70% hourly
 * at their own minute, 25% daily, 5% every minute) created through the batch API, with
 * the default 60-minute planning window. Measures the creation, what the timers cost at
 * rest in Redis and MySQL, the lateness of the every-minute runs at second 0 of each
 * minute beside the floor sending as many calls at that instant, the CPU per 1,000 fires,
 * and the migrator planning the next hour of all of them. `--scale` shrinks the count.
 */
import mysql from 'mysql2/promise';
import { loadConfig } from '../src/config.js';
import { copyTtlMs } from '../src/domain/plan/migration-window.js';
import { createLogger } from '../src/observability/logger.js';
import { WindowPlanner } from '../src/services/planning/window-planner.js';
import { openDatabase } from '../src/storage/db/client.js';
import { TaskRepository } from '../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { createKeys } from '../src/storage/redis/keys.js';
import { SliceStore } from '../src/storage/redis/runs/slice-store.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { TimerCopies } from '../src/storage/redis/timer-copies.js';
import { mysqlBytes, plannedRuns } from './footprint.js';
import {
  cpuMeterWithStores,
  keyBytes,
  MYSQL_SERVER,
  REDIS_URL,
  redisInfo,
  resetSink,
  type SinkRef,
  type SinkStats,
  settledStats,
  sinkStats,
  sleep,
  taskOutcomes,
} from './harness.js';
import { createTimerBatches, launchXtimer, startFloor, type XtimerTarget } from './targets.js';

const STEP_MINUTES = 60;
const MINUTE = 60_000;

export interface MillionResult {
  timers: number;
  create: { seconds: number; timersPerSec: number };
  footprint: {
    pendingRuns: number;
    taskRows: number;
    /** MEMORY USAGE of every key of this xtimer, over the timers. */
    redisBytesPerTimer: number;
    /** Redis's used_memory growth over the timers (moves with others' keys on a shared box). */
    redisUsedMemoryPerTimer: number;
    /** Of redisBytesPerTimer, by the key's kind (slice, timer copy, claim, queues…). */
    redisBytesPerTimerByKind: Record<string, number>;
    mysqlBytesPerTimer: number;
    /** After the next hour was planned too, as just past a window boundary. */
    redisBytesPerTimerTwoWindows: number;
  };
  firing: {
    minutes: number;
    /** Runs owed in the measured minutes (all timers) and what became of them. */
    owed: number;
    delivered: number;
    missedByPolicy: number;
    missing: number;
    /** The every-minute timers' runs alone. */
    everyMinute: SinkStats;
    /** Every run of the measured minutes, the hourly and daily ones at the same instants included. */
    all: SinkStats;
    /** CPU milliseconds per 1,000 fires, per process. */
    cpuMsPer1000Fires: Record<string, number>;
    cpuPercent: Record<string, number>;
  };
  floor: { calls: number; stats: SinkStats; cpuMsPer1000Fires: Record<string, number> };
  /** The hour's planning, or why it failed (the figures before it stand). */
  migrator: { runs: number; seconds: number; runsPerSecond: number } | { error: string };
}

const perTimer = (bytes: Record<string, number>, timers: number) =>
  Object.fromEntries(Object.entries(bytes).map(([k, b]) => [k, Math.round(b / timers)]));

/** CPU % of a core over `seconds`, as milliseconds per 1,000 fires. */
function per1000(cpu: Record<string, number>, seconds: number, fires: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cpu).map(([p, pct]) => [
      p,
      fires === 0 ? 0 : Math.round(((pct / 100) * seconds * 1e6) / fires),
    ]),
  );
}

/** The id range of the timers with this cron (created in one stretch, so contiguous). */
async function idRange(database: string, cron: string): Promise<{ min: number; max: number }> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${database}`);
  try {
    const [[r]] = (await conn.query('SELECT MIN(id) AS min, MAX(id) AS max FROM timers WHERE cron = ?', [
      cron,
    ])) as unknown as [[{ min: number; max: number }]];
    return { min: Number(r.min), max: Number(r.max) };
  } finally {
    await conn.end();
  }
}

/**
 * The migrator's work for one more hour of every timer, in this process and unpaced (the
 * service's own migrator rests as long as it works beside the firing roles): the same
 * WindowPlanner, slices and timer copies the service builds, on the bench's stores.
 */
async function planAnHour(target: XtimerTarget): Promise<MillionResult['migrator']> {
  const config = loadConfig();
  const database = openDatabase(`${MYSQL_SERVER}/${target.database}`);
  const redis = withScripts(createRedis(REDIS_URL));
  try {
    const [[row]] = (await database.pool.query(
      'SELECT UNIX_TIMESTAMP(MAX(planned_until)) * 1000 AS until FROM timers',
    )) as unknown as [[{ until: number }]];
    const horizon = Number(row.until) + STEP_MINUTES * MINUTE;
    const keys = createKeys(target.prefix);
    const copies = new TimerCopies(redis, keys);
    const migration = new WindowPlanner(
      new TimerRepository(database.db),
      new TaskRepository(database.db, database.pool),
      new SliceStore(redis, keys, { buckets: config.buckets, maxBuckets: config.maxBuckets }),
      async () => undefined,
      1500,
      createLogger('silent'),
      {},
      (planned) => copies.put(planned, copyTtlMs(STEP_MINUTES)),
    );
    const began = performance.now();
    const result = await migration.run(horizon, Date.now());
    const seconds = (performance.now() - began) / 1000;
    return {
      runs: result.runs,
      seconds: Number(seconds.toFixed(1)),
      runsPerSecond: Math.round(result.runs / seconds),
    };
  } finally {
    await database.close();
    redis.disconnect();
  }
}

export async function millionBench(timers: number, minutes: number, sink: SinkRef): Promise<MillionResult> {
  const sinkUrl = `http://127.0.0.1:${sink.port}/hook`;
  await resetSink(sink.port);
  const memBefore = (await redisInfo()).usedMemory;
  const target = await launchXtimer({ env: { MIGRATE_STEP_MINUTES: String(STEP_MINUTES) } });
  const patterns = [`${target.prefix}*`, `{${target.database}}:*`];
  let result: Omit<MillionResult, 'floor'>;
  try {
    const hourly = Math.round(timers * 0.7);
    const daily = Math.round(timers * 0.25);
    const mix: Array<[string, number, string]> = [
      ['mh', hourly, 'H * * * *'],
      ['md', daily, 'H H * * *'],
      ['mm', timers - hourly - daily, '* * * * *'],
    ];
    const began = performance.now();
    for (const [appPrefix, count, cron] of mix) {
      await createTimerBatches(target.base, count, cron, sinkUrl, 'active', {
        batchSize: 1000,
        clients: 4,
        appPrefix,
        // Half of MAX_TIMERS_PER_APP (10,000) an app at most.
        apps: Math.max(64, Math.ceil(count / 5000)),
      });
      process.stdout.write(
        `  ${count} timers "${cron}" created (${((performance.now() - began) / 1000).toFixed(1)} s in)\n`,
      );
    }
    const createSeconds = (performance.now() - began) / 1000;

    const pendingRuns = await plannedRuns(target.prefix, 6 * MINUTE);
    const redisUsed = (await redisInfo()).usedMemory - memBefore;
    const redisKeys = await keyBytes(target.prefix, patterns);
    const redisBytes = redisKeys.total;
    const { bytes, taskRows } = await mysqlBytes(target.database);
    process.stdout.write(
      `  created ${timers} in ${createSeconds.toFixed(1)} s; ${pendingRuns} runs planned in Redis, ${taskRows} in MySQL: ` +
        `Redis ${Math.round(redisBytes / timers)} B/timer (used_memory grew ${Math.round(redisUsed / timers)} B/timer), MySQL ${Math.round(bytes / timers)} B/timer\n` +
        `  Redis bytes per timer by key kind: ${JSON.stringify(perTimer(redisKeys.byKind, timers))}; ` +
        `${redisKeys.skiplists.keys} of ${redisKeys.keysByKind.slice ?? 0} slices past the compact encoding, holding ${redisKeys.skiplists.runs} runs; ` +
        `queues ${JSON.stringify(perTimer(redisKeys.byQueue, timers))}\n`,
    );

    // Whole minutes: every instant of the mix is second 0 of a minute.
    const everyMinute = await idRange(target.database, '* * * * *');
    const t0 = Math.ceil((Date.now() + 5000) / MINUTE) * MINUTE;
    const t1 = t0 + minutes * MINUTE;
    await sleep(t0 - 1000 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sink.pid });
    cpu.start();
    await sleep(t1 - 1000 - Date.now());
    const cpuPercent = cpu.stop();
    const seconds = minutes * 60;
    const settle = { quietMs: 10_000, capMs: 120_000 };
    const em = await settledStats(sink.port, t0, t1, (everyMinute.max - everyMinute.min + 1) * minutes, {
      ...settle,
      timers: everyMinute,
    });
    const all = await sinkStats(sink.port, t0, t1);
    const owedRuns = await taskOutcomes(target.database, t0, t1, 0, Number.MAX_SAFE_INTEGER);
    const owed = Object.values(owedRuns.byStatus).reduce((a, b) => a + b, 0);
    const missedByPolicy = (owedRuns.byStatus.missed ?? 0) + (owedRuns.byStatus.skipped ?? 0);
    const firing: MillionResult['firing'] = {
      minutes,
      owed,
      delivered: all.delivered,
      missedByPolicy,
      missing: owed - all.delivered - missedByPolicy,
      everyMinute: em,
      all,
      cpuMsPer1000Fires: per1000(cpuPercent, seconds, all.delivered),
      cpuPercent,
    };
    process.stdout.write(
      `  firing over ${minutes} min: ${owed} owed, ${all.delivered} delivered, ${missedByPolicy} missed by policy, ` +
        `${firing.missing} missing, ${all.duplicates} doubled; every-minute runs p50=${em.p50}ms p99=${em.p99}ms ` +
        `max=${em.max}ms (all runs p99=${all.p99}ms); CPU ms per 1,000 fires ${JSON.stringify(firing.cpuMsPer1000Fires)}\n`,
    );

    process.stdout.write('  the migrator plans the next hour of every timer…\n');
    const migrator = await planAnHour(target).catch((err: Error) => ({ error: String(err.stack ?? err) }));
    const twoWindowKeys = await keyBytes(target.prefix, patterns);
    const twoWindows = twoWindowKeys.total;
    process.stdout.write(
      'error' in migrator
        ? `  migrator: failed: ${migrator.error}\n`
        : `  migrator: ${migrator.runs} runs in ${migrator.seconds} s (${migrator.runsPerSecond} runs/s); ` +
            `Redis with two windows planned ${Math.round(twoWindows / timers)} B/timer ` +
            `(${JSON.stringify(perTimer(twoWindowKeys.byKind, timers))}; queues ${JSON.stringify(perTimer(twoWindowKeys.byQueue, timers))}; ` +
            `${twoWindowKeys.skiplists.keys} slices past the compact encoding)\n`,
    );
    result = {
      timers,
      create: { seconds: Number(createSeconds.toFixed(1)), timersPerSec: Math.round(timers / createSeconds) },
      footprint: {
        pendingRuns,
        taskRows,
        redisBytesPerTimer: Math.round(redisBytes / timers),
        redisUsedMemoryPerTimer: Math.round(redisUsed / timers),
        redisBytesPerTimerByKind: perTimer(redisKeys.byKind, timers),
        mysqlBytesPerTimer: Math.round(bytes / timers),
        redisBytesPerTimerTwoWindows: Math.round(twoWindows / timers),
      },
      firing,
      migrator,
    };
  } finally {
    await target.stop();
  }

  // The floor: a bare client sending as many calls at second 0 of each minute as xtimer's instants held.
  const calls = Math.round(result.firing.all.delivered / minutes);
  await resetSink(sink.port);
  const floor = await startFloor(calls, sinkUrl, MINUTE);
  try {
    const f0 = Math.ceil((Date.now() + 5000) / MINUTE) * MINUTE;
    const f1 = f0 + MINUTE;
    await sleep(f0 - 1000 - Date.now());
    const cpu = await cpuMeterWithStores({ ...floor.pids(), sink: sink.pid });
    cpu.start();
    await sleep(f1 - 1000 - Date.now());
    const cpuPercent = cpu.stop();
    const stats = await settledStats(sink.port, f0, f1, calls, { quietMs: 10_000, capMs: 120_000 });
    const out: MillionResult['floor'] = {
      calls,
      stats,
      cpuMsPer1000Fires: per1000(cpuPercent, 60, stats.delivered),
    };
    process.stdout.write(
      `  floor: ${calls} calls at second 0: p50=${stats.p50}ms p99=${stats.p99}ms max=${stats.max}ms; ` +
        `CPU ms per 1,000 ${JSON.stringify(out.cpuMsPer1000Fires)}\n`,
    );
    return { ...result, floor: out };
  } finally {
    await floor.stop();
  }
}
