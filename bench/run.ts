/**
 * npm run bench [-- --quick] [-- --only=precision,max,slow,noisy,overload,sustained,oneshots,migrator,history,api,footprint]
 *                [-- --timers=5000,8000 [--plan-minutes=60] [--floor]] [-- --soak=5000 --seconds=300]
 *                [-- --only=overload --seconds=20 --scale=0.1]
 *                [-- --only=oneshots --oneshots=100000 --minutes=10]
 *                [-- --only=spread [--scale=0.02] [--spread-minutes=2]]
 *                [-- --only=million [--scale=0.02] [--minutes=2]]
 *                [-- --only=footprint [--linger=5]]
 * (--timers: just those precision lines, xtimer only, for tuning, 30 s or --seconds; --plan-minutes: the
 * migrator plans that many minutes ahead while they measure, as line 2h does; --floor: the floor
 * line before each, on a box whose speed drifts; a line over 30 s shows its p99 by 10 s;
 * --soak: one long xtimer run at that rate, reported every 10 s; --seconds and --scale shorten and shrink the
 * delivery lines slow, noisy, overload and spread while developing them; --scale also
 * shrinks the million, and --minutes is its measured firing minutes)
 *
 * Open-loop benchmark: the timers generate the load. Every-second
 * timers put N runs on the same millisecond each second; a sink in its own process
 * records when each task id arrived. Lateness = arrival − X-Xtimer-Scheduled-At.
 * Each precision line runs xtimer and, beside it, BullMQ's own job schedulers, after
 * the harness floor: a bare client sending the same callbacks at each instant. The
 * delivery lines run xtimer alone against hard receivers and overload.
 */

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { apiBench } from './api-bench.js';
import { type BenchLine, printLine, type System, table } from './bench-line.js';
import { type FootprintResult, footprintBench } from './footprint.js';
import {
  accountedStats,
  Child,
  cpuMeterWithStores,
  freePort,
  mysqlInfo,
  pendingSliceRuns,
  ROOT,
  redisInfo,
  resetSink,
  sinkStats,
  sleep,
} from './harness.js';
import { historyBench } from './history-bench.js';
import { migratorBench } from './migrator-bench.js';
import { type MillionResult, millionBench } from './million.js';
import { type NoisyNeighbourResult, noisyNeighbour } from './noisy-neighbour.js';
import { type OneShotsResult, oneShotsBench } from './one-shots.js';
import { type OverloadRecoveryResult, overloadRecovery } from './overload-recovery.js';
import { slowReceivers } from './slow-receivers.js';
import { type SoakResult, soak } from './soak.js';
import { type SpreadResult, spreadBench } from './spread.js';
import { startBullmq, startFloor, startXtimer, type Target } from './targets.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
/** How long the precision lines wait for late arrivals: until 10 s pass without one (3 s quick), at most 2 min. */
const SETTLE = { quietMs: quick ? 3000 : 10_000, capMs: 120_000 };
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const wants = (s: string) => !only || only.includes(s);
const soakTimers = Number(args.find((a) => a.startsWith('--soak='))?.slice(7) ?? 0);
const secondsArg = args.find((a) => a.startsWith('--seconds='))?.slice(10);
const soakSeconds = Number(secondsArg ?? 300);
/** The delivery lines' timer counts are multiplied by this (e.g. 0.1 for a short development run). */
const scale = Number(args.find((a) => a.startsWith('--scale='))?.slice(8) ?? 1);
const scaled = (n: number) => Math.max(1, Math.round(n * scale));
const tuningSizes = args
  .find((a) => a.startsWith('--timers='))
  ?.slice(9)
  .split(',')
  .map(Number);
/** Tuning lines: the migrator's step (MIGRATE_STEP_MINUTES), so it plans that much ahead while they measure. */
const planMinutes = args.find((a) => a.startsWith('--plan-minutes='))?.slice(15);
const withFloor = args.includes('--floor');
const oneShotCount = Number(args.find((a) => a.startsWith('--oneshots='))?.slice(11) ?? 0);
const minutesArg = args.find((a) => a.startsWith('--minutes='))?.slice(10);
/** Footprint: measure again after this many more minutes of firing (what walked minutes leave). */
const lingerArg = args.find((a) => a.startsWith('--linger='))?.slice(9);
const oneShotMinutes = Number(minutesArg ?? 10);
/** Whole minutes each spread variant is measured over. */
const spreadMinutes = Number(args.find((a) => a.startsWith('--spread-minutes='))?.slice(17) ?? 2);

const results: {
  precision: BenchLine[];
  maxSustainedFiresPerSec?: number;
  /** The floor line, then xtimer's. */
  slowReceivers?: BenchLine[];
  noisyNeighbour?: NoisyNeighbourResult;
  overloadRecovery?: OverloadRecoveryResult;
  sustainedOverload?: OverloadRecoveryResult;
  spread?: SpreadResult;
  soak?: SoakResult;
  oneShots?: OneShotsResult;
  migrator?: unknown;
  api?: unknown;
  history?: unknown;
  footprint?: FootprintResult;
  million?: MillionResult;
  env?: unknown;
} = {
  precision: [],
};

async function measure(
  scenario: string,
  system: System,
  timers: number,
  seconds: number,
  sinkPort: number,
  sinkPid: number,
  xtimerEnv: Record<string, string> = {},
): Promise<BenchLine> {
  const sinkUrl = `http://127.0.0.1:${sinkPort}/hook`;
  await resetSink(sinkPort);
  const memBefore = (await redisInfo()).usedMemory;
  const target: Target =
    system === 'xtimer'
      ? await startXtimer(timers, '* * * * * *', sinkUrl, xtimerEnv)
      : system === 'bullmq'
        ? await startBullmq(timers, '* * * * * *', sinkUrl)
        : await startFloor(timers, sinkUrl);
  try {
    // Settle: the first runs after creation, the first migration. A line with a plan step
    // of its own measures the planning of that step: from the top-up that plans the timers
    // just created, 1 s after the next minute starts.
    const settled = Math.ceil(Date.now() / 1000) * 1000 + (quick ? 3000 : 5000);
    const t0 = xtimerEnv.MIGRATE_STEP_MINUTES ? Math.ceil(settled / 60_000) * 60_000 + 2000 : settled;
    const t1 = t0 + seconds * 1000;
    await sleep(t0 - Date.now());
    const cpu = await cpuMeterWithStores({ ...target.pids(), sink: sinkPid });
    cpu.start();
    await sleep(t1 - Date.now());
    const cpuUse = cpu.stop();
    let bytesPerRun: number | null = null;
    if (system === 'xtimer') {
      const pending = await pendingSliceRuns(target.prefix);
      const mem = (await redisInfo()).usedMemory;
      // Too few runs to show above the noise (another target's keys freed meanwhile): no figure.
      bytesPerRun = pending > 0 && mem > memBefore ? Math.round((mem - memBefore) / pending) : null;
    }
    // Late arrivals still count, however late, until they stop coming: missing means never sent.
    const expected = timers * seconds;
    // Runs xtimer recorded missed or skipped (its misfire policy: later than the default
    // 60 s threshold under overload) are accounted for; missing are runs nobody can account for.
    const s = await accountedStats(
      sinkPort,
      'database' in target && typeof target.database === 'string' ? target.database : null,
      t0,
      t1,
      expected,
      { ...SETTLE, recordedWithinMs: 240_000 },
    );
    const { missedByPolicy } = s;
    const stretchesP99: number[] = [];
    for (let from = t0; seconds > 30 && from < t1; from += 10_000)
      stretchesP99.push((await sinkStats(sinkPort, from, Math.min(from + 10_000, t1))).p99);
    const missing = expected - s.delivered - missedByPolicy;
    const line: BenchLine = {
      scenario,
      system,
      timers,
      seconds,
      expected,
      delivered: s.delivered,
      missing,
      ...(missedByPolicy > 0 ? { missedByPolicy } : {}),
      duplicates: s.duplicates,
      p50: s.p50,
      p90: s.p90,
      p99: s.p99,
      max: s.max,
      firesPerSec: Math.round(s.delivered / seconds),
      cpu: cpuUse,
      redisBytesPerPendingRun: bytesPerRun,
      ...(stretchesP99.length > 0 ? { stretchesP99 } : {}),
      failed: missing > 0 || s.duplicates > 0,
    };
    printLine(line);
    return line;
  } finally {
    await target.stop();
  }
}

function ratios(lines: BenchLine[]): string[] {
  const out: string[] = [];
  for (const x of lines.filter((l) => l.system === 'xtimer')) {
    const b = lines.find((l) => l.system === 'bullmq' && l.scenario === x.scenario);
    const floor = lines.find((l) => l.system === 'floor' && l.scenario === x.scenario);
    if (b)
      out.push(
        `${x.scenario}: p99 xtimer ${x.p99} ms vs BullMQ ${b.p99} ms (${(b.p99 / Math.max(x.p99, 1)).toFixed(1)}x better); ` +
          `p50 ${x.p50} vs ${b.p50} ms; missing ${x.missing} vs ${b.missing}; duplicates ${x.duplicates} vs ${b.duplicates}`,
      );
    if (floor) out.push(`${x.scenario}: ${overFloor(x, floor)}`);
  }
  return out;
}

/**
 * What xtimer adds to the floor: lateness over the floor's, and CPU per 1,000 fires of
 * each process beside the floor sender's (the work of sending alone).
 */
function overFloor(x: BenchLine, floor: BenchLine): string {
  const per1000 = (l: BenchLine, process: string) =>
    l.delivered === 0
      ? 0
      : Math.round((((l.cpu[process] ?? 0) / 100) * l.seconds * 1000 * 1000) / l.delivered);
  const xtimer = ['xtimer', 'redis', 'mysql'].map((p) => [p, per1000(x, p)] as const);
  const sender = per1000(floor, 'sender');
  const total = xtimer.reduce((sum, [, ms]) => sum + ms, 0);
  return (
    `xtimer − floor: p50 ${signed(x.p50 - floor.p50)} ms, p99 ${signed(x.p99 - floor.p99)} ms ` +
    `(floor p50 ${floor.p50}, p99 ${floor.p99} ms); CPU ms per 1,000 fires: ` +
    `${xtimer.map(([p, ms]) => `${p} ${ms}`).join(', ')} (together ${total}) vs the floor's sender ${sender}` +
    (sender > 0 ? ` (${(total / sender).toFixed(1)}x)` : '')
  );
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));

async function main(): Promise<void> {
  const redis = await redisInfo();
  const db = await mysqlInfo();
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  results.env = {
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    redis: redis.version,
    redisHz: redis.hz,
    mysql: db.version,
    mysqlBufferPoolMiB: db.bufferPoolMiB,
    bullmq: pkg.dependencies.bullmq,
  };
  process.stdout.write(`xtimer benchmark (${quick ? 'quick' : 'full'}) — ${JSON.stringify(results.env)}\n`);
  process.stdout.write(
    `Redis hz=${redis.hz}: BullMQ promotes delayed jobs on that tick (${1000 / redis.hz} ms); xtimer releases runs from its own timing wheel.\n`,
  );
  if (db.bufferPoolMiB < 1024)
    process.stdout.write(
      `MySQL's InnoDB buffer pool is ${db.bufferPoolMiB} MiB: the lines that plan millions of runs outgrow it and read them from disk (innodb_buffer_pool_size, docs/operating.md).\n`,
    );
  process.stdout.write('\n');

  const sinkPort = await freePort();
  const sink = new Child('sink', 'bench/sink.ts', [String(sinkPort)]);
  await sink.waitFor('sink listening');
  // A tuning line may measure longer (--seconds): 120 s holds a whole planning window.
  const seconds = quick ? 5 : tuningSizes && secondsArg ? Number(secondsArg) : 30;
  try {
    if (soakTimers > 0) {
      process.stdout.write(`Soak: ${soakTimers} every-second timers for ${soakSeconds} s\n`);
      const r = await soak(soakTimers, soakSeconds, sinkPort);
      results.soak = r;
      process.stdout.write(
        `  soak total: expected=${r.expected} delivered=${r.delivered} missing=${r.expected - r.delivered} ` +
          `dup=${r.duplicates} p50=${r.p50}ms p99=${r.p99}ms max=${r.max}ms\n`,
      );
    } else if (tuningSizes) {
      for (const n of tuningSizes)
        for (const system of withFloor ? (['floor', 'xtimer'] as const) : (['xtimer'] as const))
          results.precision.push(
            await measure(
              `tuning: ${n}${planMinutes ? ` + planning ${planMinutes} min` : ''}`,
              system,
              n,
              seconds,
              sinkPort,
              sink.pid,
              planMinutes ? { MIGRATE_STEP_MINUTES: planMinutes } : {},
            ),
          );
    } else if (wants('precision')) {
      process.stdout.write(
        'Precision (every-second timers: N runs due at the same millisecond each second)\n',
      );
      // 2h: the default 60-minute window, so the migrator writes the hour's 3.6 million
      // runs of the timers just created while the line measures (BullMQ plans nothing).
      const sizes: Array<[string, number, Record<string, string>?]> = quick
        ? [['1: 100 per instant', 100]]
        : [
            ['1: 100 per instant', 100],
            ['2: 1,000 per instant', 1000],
            ['2h: 1,000 + planning', 1000, { MIGRATE_STEP_MINUTES: '60' }],
            ['3: 5,000 per instant', 5000],
          ];
      for (const [scenario, n, env] of sizes) {
        for (const system of env ? (['floor', 'xtimer'] as const) : (['floor', 'xtimer', 'bullmq'] as const))
          results.precision.push(await measure(scenario, system, n, seconds, sinkPort, sink.pid, env));
      }
    }
    if (wants('max') && !quick && !tuningSizes && !soakTimers) {
      process.stdout.write('\nMax sustained (xtimer; steps up until p99 >= 500 ms or a run is missed)\n');
      // The 5,000 line of scenario 3 is one step; the others go around it.
      const at5000 = results.precision.find((l) => l.system === 'xtimer' && l.timers === 5000);
      let sustained = 0;
      for (const n of [2000, 5000, 6000, 8000, 12_000]) {
        const line =
          n === 5000 && at5000
            ? at5000
            : await measure('4: max sustained', 'xtimer', n, seconds, sinkPort, sink.pid);
        if (line !== at5000) results.precision.push(line);
        if (line.failed || line.p99 >= 500) break;
        sustained = n;
      }
      results.maxSustainedFiresPerSec = sustained;
      process.stdout.write(
        `  4: max sustained: ${sustained} fires/s at p99 < 500 ms, none missed or doubled\n`,
      );
    }
    // The delivery lines: xtimer alone, against hard receivers and overload.
    const delivery = !quick && !tuningSizes && !soakTimers;
    const sinkRef = { port: sinkPort, pid: sink.pid };
    if (delivery && wants('slow')) {
      process.stdout.write('\nSlow receivers (every call answered after 2 s; lateness of the call start)\n');
      results.slowReceivers = await slowReceivers(scaled(1000), Number(secondsArg ?? 30), sinkRef);
    }
    if (delivery && wants('noisy')) {
      process.stdout.write(
        '\nNoisy neighbour (app noisy: calls that hang until the timeout, retried; app quiet: a fast receiver)\n',
      );
      results.noisyNeighbour = await noisyNeighbour(
        scaled(200),
        scaled(20),
        Number(secondsArg ?? 30),
        sinkRef,
      );
    }
    if (delivery && wants('overload')) {
      const overloadSeconds = Number(secondsArg ?? 60);
      process.stdout.write(
        `\nOverload then recovery (${scaled(8000)} every-second timers for ${overloadSeconds} s, then ${scaled(7000)} disabled through the API)\n`,
      );
      results.overloadRecovery = await overloadRecovery(
        scaled(8000),
        scaled(1000),
        overloadSeconds,
        Math.round(overloadSeconds * 1.5),
        sinkRef,
      );
    }
    if (delivery && wants('sustained')) {
      const sustainedSeconds = Number(secondsArg ?? 180);
      process.stdout.write(
        `\nSustained overload (${scaled(8000)} every-second timers for ${sustainedSeconds} s, no drop)\n`,
      );
      results.sustainedOverload = await overloadRecovery(
        scaled(8000),
        0,
        sustainedSeconds,
        0,
        sinkRef,
        'none',
      );
    }
    if (delivery && wants('spread')) {
      process.stdout.write(
        `\nSpread (${scaled(5000)} timers each: 0 * * * * * aligned, H * * * * *, and jitterMs 59000; a 100 ms receiver; ${spreadMinutes} min each)\n`,
      );
      results.spread = await spreadBench(scaled(5000), spreadMinutes, sinkRef);
    }
    if (wants('oneshots') && !tuningSizes && !soakTimers) {
      const count = oneShotCount || (quick ? 2000 : 100_000);
      const minutes = quick ? 1 : oneShotMinutes;
      process.stdout.write(
        `\nOne-shots: ${count} over ${minutes} min, beside every-second timers at the same rate\n`,
      );
      const r = await oneShotsBench(count, minutes, sinkPort);
      results.oneShots = r;
      const line = (what: string, s: OneShotsResult['oneShots']) =>
        `  ${what.padEnd(10)} delivered=${s.delivered} missing=${s.missing} dup=${s.duplicates} ` +
        `p50=${s.p50}ms p90=${s.p90}ms p99=${s.p99}ms max=${s.max}ms\n`;
      process.stdout.write(line('one-shots', r.oneShots));
      process.stdout.write(line(`cron ×${r.cron.timers}`, r.cron));
      process.stdout.write(`  created ${r.createdPerSec}/s; CPU ${JSON.stringify(r.cpu)}\n`);
    }
    if (wants('migrator') && !tuningSizes && !soakTimers) {
      process.stdout.write('\nMigrator\n');
      results.migrator = await migratorBench(quick ? 2000 : 20_000, 50);
    }
    if (wants('footprint') && !tuningSizes && !soakTimers) {
      process.stdout.write('\nFootprint\n');
      results.footprint = await footprintBench(
        quick ? 10_000 : 100_000,
        `http://127.0.0.1:${sinkPort}/footprint`,
        Number(lingerArg ?? 0),
      );
    }
    // A million timers: only when asked for by name (it takes ~15 minutes and GBs of both stores).
    if (only?.includes('million') && !tuningSizes && !soakTimers) {
      const n = scaled(1_000_000);
      process.stdout.write(`\nA million timers (${n}: 70% hourly, 25% daily, 5% every minute)\n`);
      results.million = await millionBench(n, Number(minutesArg ?? 2), { port: sinkPort, pid: sink.pid });
    }
    if (wants('history') && !tuningSizes && !soakTimers) {
      process.stdout.write('\nHistory\n');
      results.history = await historyBench(quick ? 100_000 : 1_000_000);
    }
    if (wants('api') && !tuningSizes && !soakTimers) {
      process.stdout.write('\nAPI\n');
      results.api = await apiBench(quick ? 300 : 3000, quick ? 5000 : 30_000);
    }
  } finally {
    await sink.stop();
  }

  const deliveryLines = [
    ...(results.slowReceivers ?? []),
    results.noisyNeighbour?.quiet,
    results.overloadRecovery?.line,
    results.sustainedOverload?.line,
    results.spread?.aligned.line,
    results.spread?.hashed.line,
    results.spread?.jittered.line,
  ].filter((l) => l !== undefined);
  process.stdout.write(`\n${table([...results.precision, ...deliveryLines])}\n\n`);
  for (const r of ratios(results.precision)) process.stdout.write(`${r}\n`);
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const file = `${ROOT}bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}-${quick ? 'quick' : 'full'}-${randomBytes(2).toString('hex')}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nresults written to ${file.replace(ROOT, '')}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
