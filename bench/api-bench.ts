/**
 * Scenario 6: timer creates through the HTTP API — one timer a request (32 concurrent
 * clients over 64 apps), and 1,000 a request through POST /timers/batch. Every-minute
 * timers; the active ones are planned into MySQL and Redis for their near term.
 */
import { randomBytes } from 'node:crypto';
import {
  Child,
  cpuSeconds,
  deleteKeys,
  dropDatabase,
  freePort,
  LOCAL_SINK_ENV,
  MYSQL_SERVER,
  pidOf,
  REDIS_URL,
  redisInfo,
} from './harness.js';
import { createTimerBatches, createTimers } from './targets.js';

const EVERY_MINUTE = '0 * * * * *';
const NOWHERE = 'http://127.0.0.1:9/x';
/** The create-rate targets: single creates a second, and timers a second through batches. */
const CREATE_TARGETS = { singlePerSecond: 1500, batchTimersPerSecond: 10_000 };

export async function apiBench(count: number, batchTimers: number) {
  const name = `xtbench_api_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  // The default migration window (an hour): what near-term planning makes cheap.
  const api = new Child('api', 'workers/main.ts', ['--roles=api'], {
    ...LOCAL_SINK_ENV,
    MYSQL_URL: `${MYSQL_SERVER}/${name}`,
    REDIS_URL,
    XTIMER_PREFIX: `${name}:`,
    PORT: String(port),
    LOG_LEVEL: 'info',
  });
  const pids = {
    api: 0,
    // This process: the 32 clients sending the creates, on the same two cores.
    client: process.pid,
    mysql: pidOf('mariadbd') || pidOf('mysqld'),
    redis: (await redisInfo()).pid,
  };
  /**
   * Runs one line and reports its rate, and the CPU each process spent per timer: on a
   * busy shared box the rate swings with the neighbours, the CPU per timer much less
   * (MySQL's and Redis's include whatever else uses them meanwhile).
   */
  const timed = async (
    what: string,
    n: number,
    unit: string,
    target: number | null,
    run: () => Promise<void>,
  ) => {
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const began = performance.now();
    await run();
    const perSecond = Math.round(n / ((performance.now() - began) / 1000));
    const cpuMsPerTimer = Object.fromEntries(
      Object.entries(pids).map(([k, pid]) => [
        k,
        Number((((cpuSeconds(pid) - cpuBefore[k]!) * 1000) / n).toFixed(3)),
      ]),
    );
    const verdict =
      target === null
        ? ''
        : perSecond >= target
          ? ` (target ≥ ${target}: met)`
          : ` (target ≥ ${target}: NOT met)`;
    const cpu = Object.entries(cpuMsPerTimer)
      .map(([k, ms]) => `${k} ${ms}`)
      .join(', ');
    process.stdout.write(
      `  6: ${what.padEnd(58)} ${n} → ${perSecond} ${unit}/s${verdict}; CPU ms per timer: ${cpu}\n`,
    );
    return { perSecond, cpuMsPerTimer };
  };
  try {
    await api.waitFor('"xtimer started"');
    pids.api = api.pid;
    const base = `http://127.0.0.1:${port}`;
    const inactive = await timed(
      'single creates, inactive (stored only), 32 clients',
      count,
      'creates',
      null,
      async () => {
        await createTimers(base, count, EVERY_MINUTE, NOWHERE, 'inactive', { appPrefix: 'idle' });
      },
    );
    const active = await timed(
      'single creates, active every-minute (planned), 32 clients',
      count,
      'creates',
      CREATE_TARGETS.singlePerSecond,
      async () => {
        await createTimers(base, count, EVERY_MINUTE, NOWHERE, 'active', { appPrefix: 'active' });
      },
    );
    const batch = await timed(
      'batch creates, 1,000 active every-minute a request, 4 clients',
      batchTimers,
      'timers',
      CREATE_TARGETS.batchTimersPerSecond,
      () =>
        createTimerBatches(base, batchTimers, EVERY_MINUTE, NOWHERE, 'active', {
          batchSize: 1000,
          clients: 4,
          appPrefix: 'batch',
        }),
    );
    return { count, batchTimers, inactive, active, batch };
  } finally {
    await api.stop();
    await dropDatabase(name);
    await deleteKeys([`${name}:*`, `{${name}}:*`]);
  }
}
