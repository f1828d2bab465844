/** The systems under test: xtimer (a real process), BullMQ job schedulers, and the harness floor. */
import { randomBytes } from 'node:crypto';
import {
  Child,
  deleteKeys,
  dropDatabase,
  freePort,
  LOCAL_SINK_ENV,
  MYSQL_SERVER,
  pool,
  REDIS_URL,
} from './harness.js';

export interface Target {
  /** Processes whose CPU the benchmark reports (name → pid). */
  pids(): Record<string, number>;
  /** The Redis key prefix of its data, for the memory probe. */
  prefix: string;
  /** xtimer's API base URL. */
  base?: string;
  stop(): Promise<void>;
}

/** Starts xtimer on a fresh database and key prefix and creates `count` active timers. */
export async function startXtimer(count: number, cron: string, sinkUrl: string): Promise<Target> {
  const name = `xtbench_${randomBytes(4).toString('hex')}`;
  const prefix = `${name}:`;
  const port = await freePort();
  const env = {
    ...LOCAL_SINK_ENV,
    MYSQL_URL: `${MYSQL_SERVER}/${name}`,
    REDIS_URL,
    XTIMER_PREFIX: prefix,
    PORT: String(port),
    LOG_LEVEL: 'info',
    // Short windows: an enabled timer gets 2-4 minutes of runs, not 1-2 hours.
    MIGRATE_STEP_MINUTES: '2',
  };
  const main = new Child('xtimer', 'workers/main.ts', [], env);
  await main.waitFor('"xtimer started"');
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await main.stop();
    await dropDatabase(name);
    await deleteKeys([`${prefix}*`, `{${name}}:*`]);
  };
  try {
    await createTimers(base, count, cron, sinkUrl, 'active');
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${main.output.slice(-3000)}`);
  }
  return { prefix, base, pids: () => ({ xtimer: main.pid }), stop };
}

/**
 * Creates timers through the API, 32 at a time, spread over 64 apps (the per-app lock
 * serialises one app's changes); a busy answer (409 APP_BUSY, 429) is retried.
 */
export async function createTimers(
  base: string,
  count: number,
  cron: string,
  sinkUrl: string,
  status: 'active' | 'inactive',
): Promise<void> {
  const indexes = Array.from({ length: count }, (_, i) => i);
  await pool(indexes, 32, async (i) => {
    for (let tries = 1; ; tries++) {
      const res = await fetch(`${base}/api/v1/timers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          app: `bench${i % 64}`,
          name: `t${i}`,
          cron,
          status,
          callback: { url: sinkUrl, method: 'POST' },
          retry: { maxAttempts: 1, backoffMs: 0 },
        }),
      });
      const text = await res.text();
      if (res.status === 201) return;
      if ((res.status === 409 && text.includes('APP_BUSY')) || res.status === 429 || res.status >= 500) {
        if (tries < 10) {
          await new Promise((r) => setTimeout(r, 200 * tries));
          continue;
        }
      }
      throw new Error(`create failed: ${res.status} ${text}`);
    }
  });
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

/** The harness floor: `count` callbacks sent at each whole second by a bare undici client. */
export async function startFloor(count: number, sinkUrl: string): Promise<Target> {
  const child = new Child('sender', 'bench/floor-sender.ts', [sinkUrl, String(count)]);
  await child.waitFor('floor sender ready');
  return {
    prefix: '',
    pids: () => ({ sender: child.pid }),
    stop: () => child.stop(),
  };
}
