import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Timer } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import {
  WindowPlanner,
  type WindowPlannerOptions,
} from '../../../../src/services/planning/window-planner.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { type ExecuteJob, runsOf } from '../../../../src/storage/redis/queues.js';
import { SliceStore } from '../../../../src/storage/redis/runs/slice-store.js';
import { sliceRuns } from '../../../helpers/slices.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

let stores: TestStores;
let timers: TimerRepository;
let tasks: TaskRepository;
let slices: SliceStore;
let migration: WindowPlanner;
const dispatched: ExecuteJob[] = [];
const keys = () => createKeys(stores.config.prefix);

const HOUR = 3600_000;
const T0 = Date.parse('2030-01-01T10:00:00Z');

async function addTimer(name: string, cron: string, plannedUntil: number | null = null) {
  const t = await timers.insert(
    testDraft({
      app: 'mig',
      name,
      cron,
      callback: { url: 'http://127.0.0.1:9/x', method: 'POST', headers: {}, body: null, timeoutMs: 1000 },
      retry: { maxAttempts: 1, backoffMs: 0 },
    }),
  );

  await timers.setPlannedUntil([t.id], plannedUntil);
  return t;
}

async function countRuns(where = '1=1'): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM tasks WHERE ${where}`);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

async function plannedUntil(timerId: number): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT planned_until FROM timers WHERE id = ?', [timerId]);
  return (rows as Array<{ planned_until: Date }>)[0]!.planned_until.getTime();
}

/** The runs in the slices (`timerId_runAt_version`), each with how many times it is there. */
async function sliceMembers(): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const r of await sliceRuns(stores.redis, stores.config.prefix)) {
    const name = `${r.timerId}_${r.runAt}_${r.version}`;
    found.set(name, (found.get(name) ?? 0) + 1);
  }
  return found;
}

/** A planner over this file's stores, reading 7 timers a page; `over` swaps in a part. */
function plannerWith(
  options: Partial<WindowPlannerOptions>,
  over: { timers?: TimerRepository; tasks?: TaskRepository; copy?: (timers: Timer[]) => Promise<void> } = {},
): WindowPlanner {
  return new WindowPlanner(
    over.timers ?? timers,
    over.tasks ?? tasks,
    slices,
    async (jobs) => dispatched.push(...jobs),
    1500,
    createLogger('silent'),
    { pageSize: 7, ...options },
    over.copy,
  );
}

beforeAll(async () => {
  stores = await createTestStores('migration', { BUCKETS: '4', MAX_BUCKETS: '8' });
  timers = new TimerRepository(stores.database.db);
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
  slices = new SliceStore(stores.redis, keys(), { buckets: 4, maxBuckets: 8 });
  migration = new WindowPlanner(
    timers,
    tasks,
    slices,
    async (jobs) => dispatched.push(...jobs),
    1500,
    createLogger('silent'),
    {
      pageSize: 7,
      flushRows: 500,
    },
  );
});
beforeEach(async () => {
  dispatched.length = 0;
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`]);
});
afterAll(async () => {
  await stores.cleanup();
});

describe('migration', () => {
  it('materialises every active timer’s runs in [now, horizon) into MySQL and the slices, paging through timers', async () => {
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await addTimer(`m${i}`, '* * * * *')).id);
    const result = await migration.run(T0 + HOUR, T0, { onProgress: () => undefined });
    expect(result).toMatchObject({ timers: 20, runs: 20 * 60 });
    expect(await countRuns("status = 'pending'")).toBe(1200);
    const members = await sliceMembers();
    expect(members.size).toBe(1200);
    expect([...members.values()].every((n) => n === 1)).toBe(true);
    // Each member names the run and the timer version it was planned for.
    expect(members.has(`${ids[0]}_${T0}_1`)).toBe(true);
    expect(members.has(`${ids[0]}_${T0 + HOUR}_1`)).toBe(false);
    const [row] = (
      await stores.database.pool.query('SELECT MIN(planned_until) AS p FROM timers')
    )[0] as any[];
    expect(row.p.getTime()).toBe(T0 + HOUR);
  });

  it('writes no runs for a timer disabled or changed after it read the list (their change planned them)', async () => {
    for (let i = 0; i < 20; i++) await addTimer(`m${i}`, '* * * * *');
    // The list is read whole before the first batch is written: change two timers between.
    const racing = Object.create(timers) as TimerRepository;
    racing.pageToPlan = async (...args) => {
      const page = await timers.pageToPlan(...args);
      if (page.length === 0) {
        await stores.database.pool.query(
          "UPDATE timers SET status = 'inactive', version = version + 1 WHERE name = 'm19'",
        );
        await stores.database.pool.query("UPDATE timers SET version = version + 1 WHERE name = 'm10'");
      }
      return page;
    };
    const racingPlanner = plannerWith({ flushRows: 500 }, { timers: racing });
    await racingPlanner.run(T0 + HOUR, T0);
    const [rows] = await stores.database.pool.query(
      'SELECT t.name, COUNT(k.run_at) AS n FROM timers t LEFT JOIN tasks k ON k.timer_id = t.id GROUP BY t.name',
    );
    const byName = new Map((rows as Array<{ name: string; n: number }>).map((r) => [r.name, Number(r.n)]));
    expect(byName.get('m19')).toBe(0);
    expect(byName.get('m10')).toBe(0);
    expect(byName.get('m0')).toBe(60);
    expect(await countRuns()).toBe(18 * 60);
    expect((await sliceMembers()).size).toBe(18 * 60);
  });

  it('is idempotent: running it again adds nothing and a timer already planned is left alone', async () => {
    await addTimer('a', '*/10 * * * * *');
    await migration.run(T0 + HOUR, T0);
    const again = await migration.run(T0 + HOUR, T0);
    expect(again.timers).toBe(0);
    // Even a forced re-plan of the same window only re-finds the same rows.
    await timers.setPlannedUntil(
      (await timers.list({ limit: 10 })).map((t) => t.id),
      null,
    );
    await migration.run(T0 + HOUR, T0);
    expect(await countRuns()).toBe(360);
    expect((await sliceMembers()).size).toBe(360);
  });

  it('never moves a timer’s planned end back: a shorter pass that finishes after a longer one leaves it', async () => {
    const t = await addTimer('raced', '*/10 * * * * *');
    await migration.run(T0 + HOUR, T0);
    await timers.setPlannedUntil([t.id], T0 + 15 * 60_000, t.version);
    expect(await plannedUntil(t.id)).toBe(T0 + HOUR);
    // Its next plan, to a further end, still moves it.
    await timers.setPlannedUntil([t.id], T0 + 2 * HOUR, t.version);
    expect(await plannedUntil(t.id)).toBe(T0 + 2 * HOUR);
  });

  it('after a batch due more than a minute ahead waits for a lull in the firing, not after one due sooner', async () => {
    const now = Math.ceil(Date.now() / 60_000) * 60_000;
    const soon = await addTimer('soon', '*/10 * * * * *', now);
    const far = await addTimer('far', '*/10 * * * * *', now + 5 * 60_000);
    const planned: number[] = [];
    const lulls: number[][] = [];
    const gentle = plannerWith({
      restRatio: 1,
      flushRows: 10,
      lull: async () => {
        lulls.push([...planned]);
      },
    });
    await gentle.run(now + 10 * 60_000, now, {
      onProgress: ({ phase, runs }) => {
        if (phase === 'mysql') planned.push(runs);
      },
    });
    // One batch a timer, in id order (60 and 30 runs): only the far one's is followed by a wait.
    expect(soon.id).toBeLessThan(far.id);
    expect(planned).toEqual([60, 90]);
    expect(lulls).toEqual([[60, 90]]);
  });

  it('catches up from where a timer’s runs stop, so a window missed in an outage is materialised', async () => {
    const t = await addTimer('late', '0 * * * * *', T0 - 3 * 60_000);
    const result = await migration.run(T0 + 2 * 60_000, T0);
    expect(result.runs).toBe(5);
    const rows = await tasks.listForTimer({ timerId: t.id, limit: 10 });
    expect(rows.map((r) => r.runAt).sort()).toEqual([-3, -2, -1, 0, 1].map((m) => T0 + m * 60_000));
    // The runs already due will not be read from their slices: they are queued directly.
    const queued = dispatched.flatMap((j) => runsOf(j.data)).map((r) => `${r.timerId}_${r.runAt}`);
    expect(queued.sort()).toEqual([-3, -2, -1, 0].map((m) => `${t.id}_${T0 + m * 60_000}`));
  });

  it('queues the runs that fell due while it planned (a big window takes minutes): their slices were walked', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push((await addTimer(`slow${i}`, '* * * * *')).id);
    // Each batch takes the clock 20 minutes further, as a million timers' window does under load.
    let clock = T0;
    const slow = plannerWith({ flushRows: 500, clock: () => clock });
    await slow.run(T0 + HOUR, T0, {
      onProgress: ({ phase }) => {
        if (phase === 'mysql') clock += 20 * 60_000;
      },
    });
    const queued = new Set(dispatched.flatMap((j) => runsOf(j.data)).map((r) => `${r.timerId}_${r.runAt}`));
    // The first batch's runs were placed 20 to 40 minutes in: its first 20 minutes' were
    // past their slices; those of its last quarter hour were not.
    for (let m = 0; m < 20; m++) expect(queued.has(`${ids[0]}_${T0 + m * 60_000}`)).toBe(true);
    for (let m = 45; m < 60; m++) expect(queued.has(`${ids[0]}_${T0 + m * 60_000}`)).toBe(false);
  });

  it('counts the time spent listing the timers too: runs that fell due meanwhile are queued', async () => {
    const t = await addTimer('listed-slowly', '* * * * * *', T0 - 10_000);
    // Each page of timers takes 5 s, as listing a million after an outage does.
    let clock = T0;
    const listing = Object.assign(Object.create(timers), {
      pageToPlan: async (...args: Parameters<TimerRepository['pageToPlan']>) => {
        clock += 5000;
        return timers.pageToPlan(...args);
      },
    }) as TimerRepository;
    await plannerWith({ clock: () => clock }, { timers: listing }).run(T0 + 60_000, T0);
    const queued = new Set(dispatched.flatMap((j) => runsOf(j.data)).map((r) => r.runAt));
    // Two pages (the timer, then none): the walker read on 10 s meanwhile, plus its preread.
    for (let s = -10; s <= 12; s++) expect(queued.has(T0 + s * 1000), `${t.id} at ${s} s`).toBe(true);
  });

  it('spreads a busy minute over more buckets (BUCKETS + timers/16, capped at MAX_BUCKETS)', async () => {
    for (let i = 0; i < 40; i++) await addTimer(`busy${i}`, i < 5 ? '* * * * * *' : '0 * * * * *');
    await migration.run(T0 + 60_000, T0);
    // 40 timers in the minute (300 + 35 runs): 4 + floor(40 / 16) = 6 buckets; counted by
    // runs, the 5 every-second timers alone would have made it 4 + 335/16.
    const [count] = await slices.bucketCounts([T0]);
    expect(count).toBe(6);
    expect((await sliceMembers()).size).toBe(335);
  });

  it('stops between batches when its signal is aborted (shutdown): what it wrote is whole, the next run plans the rest', async () => {
    for (let i = 0; i < 20; i++) await addTimer(`s${i}`, '* * * * *');
    const stopping = new AbortController();
    const batched = plannerWith({ flushRows: 100 });
    const first = await batched.run(T0 + HOUR, T0, {
      signal: stopping.signal,
      onProgress: (p) => {
        if (p.phase === 'redis') stopping.abort();
      },
    });
    expect(first.stopped).toBe(true);
    expect(first.runs).toBeGreaterThan(0);
    expect(first.runs).toBeLessThan(20 * 60);
    // Every run it wrote to MySQL is in its slice too, and only those timers moved on.
    expect(await countRuns()).toBe(first.runs);
    expect((await sliceMembers()).size).toBe(first.runs);

    const rest = await batched.run(T0 + HOUR, T0);
    expect(rest.stopped).toBe(false);
    expect(await countRuns()).toBe(20 * 60);
    expect((await sliceMembers()).size).toBe(20 * 60);
  });

  it('fails with a batch’s Redis error, which never escapes as an unhandled rejection while the next batch is written', async () => {
    for (let i = 0; i < 20; i++) await addTimer(`r${i}`, '* * * * *');
    const failing = plannerWith(
      { flushRows: 100 },
      {
        copy: async () => {
          throw new Error('Redis went away');
        },
      },
    );
    await expect(failing.run(T0 + HOUR, T0)).rejects.toThrow('Redis went away');
  });

  it('returns from a failed MySQL write only once the batch before it is in Redis (its caller closes the stores then)', async () => {
    for (let i = 0; i < 20; i++) await addTimer(`w${i}`, '* * * * *');
    let inserts = 0;
    const failingTasks = Object.assign(Object.create(tasks) as TaskRepository, {
      insertRuns: async (...args: Parameters<TaskRepository['insertRuns']>) => {
        if (++inserts === 2) throw new Error('MySQL went away');
        return tasks.insertRuns(...args);
      },
    });
    let copied = false;
    const planner = plannerWith(
      { flushRows: 100 },
      {
        tasks: failingTasks,
        copy: async () => {
          await new Promise((r) => setTimeout(r, 200));
          copied = true;
        },
      },
    );
    await expect(planner.run(T0 + HOUR, T0)).rejects.toThrow('MySQL went away');
    expect(copied).toBe(true);
    expect((await sliceMembers()).size).toBe(await countRuns());
  });

  it('plans a window most timers have no run in a batch of timers at a time', async () => {
    for (let i = 0; i < 20; i++) await addTimer(`d${i}`, '0 3 * * *');
    let batches = 0;
    const planner = plannerWith({ flushRows: 500, flushTimers: 5 });
    const result = await planner.run(T0 + HOUR, T0, {
      onProgress: (p) => {
        if (p.phase === 'mysql') batches++;
      },
    });
    expect(result).toMatchObject({ timers: 20, runs: 0 });
    expect(batches).toBe(4);
    const [row] = (
      await stores.database.pool.query('SELECT MIN(planned_until) AS p FROM timers')
    )[0] as any[];
    expect(row.p.getTime()).toBe(T0 + HOUR);
  });

  it('reads the versions of a quarter of a million timers at once (the daily timers of a million)', async () => {
    const a = await addTimer('v1', '* * * * *');
    const b = await addTimer('v2', '* * * * *');
    const ids = Array.from({ length: 250_000 }, (_, i) => a.id + 1_000_000 + i);
    ids.push(a.id, b.id);
    const versions = await timers.activeVersions(ids);
    expect([...versions.keys()].sort()).toEqual([a.id, b.id].sort());
  });

  it('rebuilds the slices from MySQL after Redis lost them', async () => {
    for (let i = 0; i < 3; i++) await addTimer(`r${i}`, '*/5 * * * * *');
    await migration.run(T0 + 10 * 60_000, T0);
    await deleteKeys(stores.redis, [`${stores.config.prefix}*`]);
    expect((await sliceMembers()).size).toBe(0);
    const placed = await migration.rebuildSlices(T0 + 5 * 60_000, T0 + 10 * 60_000);
    expect(placed).toBe(3 * 12 * 5);
    expect((await sliceMembers()).size).toBe(180);
  });
});
