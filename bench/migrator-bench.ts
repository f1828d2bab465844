/** Scenario 5: the migrator materialising runs into MySQL and Redis (in-process, on fresh stores). */
import { randomBytes } from 'node:crypto';
import { createLogger } from '../src/observability/logger.js';
import { WindowPlanner } from '../src/services/planning/window-planner.js';
import { openDatabase } from '../src/storage/db/client.js';
import { prepareDatabase } from '../src/storage/db/migrate.js';
import { TaskRepository } from '../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../src/storage/db/timer-repository.js';
import { createRedis } from '../src/storage/redis/connection.js';
import { createKeys } from '../src/storage/redis/keys.js';
import { SliceStore } from '../src/storage/redis/runs/slice-store.js';
import { withScripts } from '../src/storage/redis/scripts.js';
import { deleteKeys, dropDatabase, MYSQL_SERVER, REDIS_URL } from './harness.js';

export async function migratorBench(timers: number, minutes: number) {
  const name = `xtbench_mig_${randomBytes(4).toString('hex')}`;
  const prefix = `${name}:`;
  await prepareDatabase(`${MYSQL_SERVER}/${name}`);
  const database = openDatabase(`${MYSQL_SERVER}/${name}`);
  const redis = withScripts(createRedis(REDIS_URL));
  try {
    const start = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
    // Timers straight into MySQL: this measures the migrator, not the API.
    for (let i = 0; i < timers; i += 5000) {
      const rows = [];
      for (let j = i; j < Math.min(timers, i + 5000); j++) {
        rows.push(
          `('bench${j % 16}','t${j}','0 * * * * *','UTC','http://127.0.0.1:9/x','POST','{}',NULL,5000,1,0,'fire_once',60000,'active','${new Date(start).toISOString().slice(0, 23).replace('T', ' ')}')`,
        );
      }
      await database.pool.query(
        `INSERT INTO timers (app,name,cron,timezone,callback_url,callback_method,callback_headers,callback_body,callback_timeout_ms,retry_max_attempts,retry_backoff_ms,misfire_policy,misfire_threshold_ms,status,planned_until) VALUES ${rows.join(',')}`,
      );
    }
    const migration = new WindowPlanner(
      new TimerRepository(database.db),
      new TaskRepository(database.db, database.pool),
      new SliceStore(redis, createKeys(prefix), { buckets: 10, maxBuckets: 200 }),
      async () => undefined,
      1500,
      createLogger('silent'),
    );
    const began = performance.now();
    let lastPrint = began;
    const result = await migration.run(start + minutes * 60_000, Date.now(), {
      onProgress: (p) => {
        if (performance.now() - lastPrint > 2000) {
          lastPrint = performance.now();
          process.stdout.write(`  … ${p.phase}: ${p.runs} runs\n`);
        }
      },
    });
    const seconds = (performance.now() - began) / 1000;
    const line = {
      timers,
      minutes,
      runs: result.runs,
      seconds: Number(seconds.toFixed(2)),
      runsPerSecond: Math.round(result.runs / seconds),
    };
    process.stdout.write(
      `  5: migrator               ${timers} every-minute timers × ${minutes} min = ${result.runs} runs in ${line.seconds} s → ${line.runsPerSecond} runs/s into MySQL + Redis\n`,
    );
    return line;
  } finally {
    await database.close();
    redis.disconnect();
    await dropDatabase(name);
    await deleteKeys([`${prefix}*`]);
  }
}
