/** The systems under test: xtimer (a real process), BullMQ job schedulers, and the harness floor. */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import {
  Child,
  deleteKeys,
  dropDatabase,
  freePort,
  LOCAL_SINK_ENV,
  MYSQL_SERVER,
  pool,
  REDIS_URL,
  sleep,
} from './harness.js';

export interface Target {
  /** Processes whose CPU the benchmark reports (name → pid). */
  pids(): Record<string, number>;
  /** The Redis key prefix of its data, for the memory probe. */
  prefix: string;
  stop(): Promise<void>;
}

export interface XtimerTarget extends Target {
  /** Its API, e.g. http://127.0.0.1:40123. */
  base: string;
  /** Its MySQL database, for reading what it recorded. */
  database: string;
  /** The end of its log, for an error message. */
  logTail(): string;
}

/**
 * Starts xtimer on a fresh database and key prefix, with no timers: one process running
 * every role, or (`split`) an api process beside one running the firing roles, as
 * `npm run start:api` and `npm run start:worker` do, so that an overloaded executor
 * cannot starve the API calls that drive a scenario.
 */
export async function launchXtimer(
  options: { split?: boolean; env?: Record<string, string> } = {},
): Promise<XtimerTarget> {
  const database = `xtbench_${randomBytes(4).toString('hex')}`;
  const prefix = `${database}:`;
  const port = await freePort();
  const env = {
    ...LOCAL_SINK_ENV,
    MYSQL_URL: `${MYSQL_SERVER}/${database}`,
    REDIS_URL,
    XTIMER_PREFIX: prefix,
    PORT: String(port),
    LOG_LEVEL: 'info',
    // Short windows: an enabled timer gets 2-4 minutes of runs, not 1-2 hours.
    MIGRATE_STEP_MINUTES: '2',
    ...options.env,
  };
  const roles: Record<string, string[]> = options.split
    ? { api: ['--roles=api'], worker: ['--roles=scheduler,migrator,trigger,executor'] }
    : { xtimer: [] };
  const children: Child[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await child.stop();
    await dropDatabase(database);
    await deleteKeys([`${prefix}*`, `{${database}}:*`]);
  };
  try {
    // One after the other: the first migrates the fresh database.
    for (const [name, args] of Object.entries(roles)) {
      const child = new Child(name, 'workers/main.ts', args, env);
      children.push(child);
      await child.waitFor('"xtimer started"');
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    base: `http://127.0.0.1:${port}`,
    database,
    prefix,
    pids: () => Object.fromEntries(children.map((c) => [c.name, c.pid])),
    logTail: () => children.map((c) => c.output.slice(-3000)).join('\n'),
    stop,
  };
}

/**
 * Starts xtimer and creates `count` active timers calling `sinkUrl`, through the batch
 * endpoint, 100 a request over as many apps: creating them is not what a delivery line
 * measures, and one-by-one creates (~1.3 ms of the process's CPU each) beside thousands
 * of runs a second starved the firing they were meant to set up.
 */
export async function startXtimer(
  count: number,
  cron: string,
  sinkUrl: string,
  env: Record<string, string> = {},
): Promise<XtimerTarget> {
  const target = await launchXtimer({ env });
  try {
    await createTimerBatches(target.base, count, cron, sinkUrl, 'active', {
      batchSize: 100,
      clients: 2,
      appPrefix: 'bench',
    });
  } catch (err) {
    await target.stop();
    throw new Error(`${(err as Error).message}\n${target.logTail()}`);
  }
  return target;
}

export interface TimerOptions {
  /** All the timers in this app (default: spread over 64 apps, bench0…bench63). */
  app?: string;
  /** Names are this and the timer's index (default `t`): another batch in the same apps needs its own. */
  namePrefix?: string;
  /** Top-level fields of each timer that replace the defaults (retry, misfireThresholdMs…). */
  fields?: Record<string, unknown>;
  /** The 64 apps' name prefix, when `app` is not given (default bench). */
  appPrefix?: string;
}

/** The body of one benchmark timer. */
function benchTimer(app: string, name: string, cron: string, sinkUrl: string, status: 'active' | 'inactive') {
  return {
    app,
    name,
    cron,
    status,
    callback: { url: sinkUrl, method: 'POST' },
    retry: { maxAttempts: 1, backoffMs: 0 },
  };
}

/**
 * Creates timers through the API, 32 at a time, spread over 64 apps (`${appPrefix}0…63`,
 * default bench0…bench63) unless `options.app` names one (the per-app lock serialises one
 * app's changes). Returns their ids in order.
 */
export async function createTimers(
  base: string,
  count: number,
  cron: string,
  sinkUrl: string,
  status: 'active' | 'inactive',
  options: TimerOptions = {},
): Promise<number[]> {
  const ids: number[] = [];
  await pool(
    Array.from({ length: count }, (_, i) => i),
    32,
    async (i) => {
      const created = await apiCall(base, 'POST', '/api/v1/timers', 201, {
        ...benchTimer(
          options.app ?? `${options.appPrefix ?? 'bench'}${i % 64}`,
          `${options.namePrefix ?? 't'}${i}`,
          cron,
          sinkUrl,
          status,
        ),
        ...options.fields,
      });
      ids[i] = (created as { id: number }).id;
    },
  );
  return ids;
}

/**
 * Creates timers through POST /timers/batch, `batchSize` a request, `clients` requests at a
 * time, one app each, over `apps` apps (64 unless given: more where an app would pass
 * MAX_TIMERS_PER_APP, 10,000 by default).
 */
export async function createTimerBatches(
  base: string,
  count: number,
  cron: string,
  sinkUrl: string,
  status: 'active' | 'inactive',
  {
    batchSize,
    clients,
    appPrefix,
    apps = 64,
  }: { batchSize: number; clients: number; appPrefix: string; apps?: number },
): Promise<void> {
  const batches = Array.from({ length: Math.ceil(count / batchSize) }, (_, b) => b);
  await pool(batches, clients, async (b) => {
    await apiCall(base, 'POST', '/api/v1/timers/batch', 201, {
      timers: Array.from({ length: Math.min(batchSize, count - b * batchSize) }, (_, j) =>
        benchTimer(`${appPrefix}${b % apps}`, `b${b}-${j}`, cron, sinkUrl, status),
      ),
    });
  });
}

/**
 * The API client: undici, as xtimer's own callbacks, so the load generator takes little of the
 * box's CPU from the api it measures (global fetch costs several times as much per request).
 */
const apiClient = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

/** One API call; a busy answer (409 APP_BUSY, 429, 5xx) is retried up to 10 times. */
async function apiCall(
  base: string,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  expected: number,
  body?: unknown,
): Promise<unknown> {
  for (let tries = 1; ; tries++) {
    // Open mode wants every change to say it is JSON, a bodiless disable too (docs/security.md).
    const res = await request(`${base}${path}`, {
      method,
      dispatcher: apiClient,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    if (res.statusCode === expected) return JSON.parse(text);
    const busy =
      (res.statusCode === 409 && text.includes('APP_BUSY')) ||
      res.statusCode === 429 ||
      res.statusCode >= 500;
    if (!busy || tries >= 10) throw new Error(`${method} ${path} failed: ${res.statusCode} ${text}`);
    await sleep(200 * tries);
  }
}

/** Starts the BullMQ baseline with `count` job schedulers. */
export async function startBullmq(count: number, cron: string, sinkUrl: string): Promise<Target> {
  const prefix = `bullbench_${randomBytes(4).toString('hex')}`;
  const child = new Child('bullmq', 'bench/bullmq-baseline.ts', [
    REDIS_URL,
    prefix,
    sinkUrl,
    String(count),
    cron,
    '10000',
  ]);
  await child.waitFor('baseline ready', 120_000);
  return {
    prefix: `${prefix}:`,
    pids: () => ({ bullmq: child.pid }),
    async stop() {
      await child.stop();
      await deleteKeys([`${prefix}:*`]);
    },
  };
}

/** The harness floor: `count` callbacks sent at each whole period (a second unless given) by a bare undici client. */
export async function startFloor(count: number, sinkUrl: string, periodMs = 1000): Promise<Target> {
  const child = new Child('sender', 'bench/floor-sender.ts', [
    sinkUrl,
    String(count),
    '8192',
    String(periodMs),
  ]);
  await child.waitFor('floor sender ready');
  return {
    prefix: '',
    pids: () => ({ sender: child.pid }),
    stop: () => child.stop(),
  };
}
