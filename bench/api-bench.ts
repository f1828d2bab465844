/** Scenario 6: timer creates per second through the HTTP API (32 concurrent clients, 16 apps). */
import { randomBytes } from 'node:crypto';
import {
  Child,
  deleteKeys,
  dropDatabase,
  freePort,
  LOCAL_SINK_ENV,
  MYSQL_SERVER,
  REDIS_URL,
} from './harness.js';
import { createTimers } from './targets.js';

export async function apiBench(count: number) {
  const name = `xtbench_api_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const api = new Child('api', 'workers/main.ts', ['--roles=api'], {
    ...LOCAL_SINK_ENV,
    MYSQL_URL: `${MYSQL_SERVER}/${name}`,
    REDIS_URL,
    XTIMER_PREFIX: `${name}:`,
    PORT: String(port),
    LOG_LEVEL: 'info',
    MIGRATE_STEP_MINUTES: '2',
  });
  try {
    await api.waitFor('"xtimer started"');
    const base = `http://127.0.0.1:${port}`;
    const out: Record<string, number> = {};
    for (const status of ['inactive', 'active'] as const) {
      const began = performance.now();
      await createTimers(base, count, '0 * * * * *', 'http://127.0.0.1:9/x', status);
      const perSecond = Math.round(count / ((performance.now() - began) / 1000));
      out[`${status}CreatesPerSecond`] = perSecond;
      process.stdout.write(
        `  6: API creates            ${count} ${status} timers (${status === 'active' ? 'each planned into MySQL + Redis' : 'stored only'}) → ${perSecond} creates/s\n`,
      );
      await fetch(`${base}/healthz`);
      // Same names again would conflict: the second round uses other apps.
      if (status === 'inactive') {
        const { default: mysql } = await import('mysql2/promise');
        const conn = await mysql.createConnection(`${MYSQL_SERVER}/${name}`);
        await conn.query('DELETE FROM timers');
        await conn.end();
      }
    }
    return { count, ...out };
  } finally {
    await api.stop();
    await dropDatabase(name);
    await deleteKeys([`${name}:*`, `{${name}}:*`]);
  }
}
