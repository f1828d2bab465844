import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { planHorizon, windowAt } from '../../../../src/domain/plan/migration-window.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { WindowPlanner } from '../../../../src/services/planning/window-planner.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createKeys } from '../../../../src/storage/redis/keys.js';
import { SliceStore } from '../../../../src/storage/redis/runs/slice-store.js';
import { sliceRuns } from '../../../helpers/slices.js';
import { createTestStores, deleteKeys, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';
import { offsetChangesOf, referenceRuns, scanWallClock } from '../../../helpers/wall-clock-reference.js';

/**
 * The migrator, driven window by window by an injected clock across the 2027
 * fall-back and spring-forward of New York and of Lord Howe (half-hour DST), writes
 * exactly the wall-clock reference's instants into MySQL and the slices.
 */

const HOUR = 3600_000;
const STEP_MINUTES = 60;
const CRONS = [
  '*/15 * * * *',
  '0 * * * *',
  '30 1 * * *',
  '30 2 * * *',
  '15,45 0-3 * * *',
  '*/20 */7 * * * *',
];

let stores: TestStores;
let timers: TimerRepository;
let tasks: TaskRepository;
let migration: WindowPlanner;

beforeAll(async () => {
  stores = await createTestStores('dstplanning');
  timers = new TimerRepository(stores.database.db);
  tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const slices = new SliceStore(stores.redis, createKeys(stores.config.prefix), {
    buckets: 2,
    maxBuckets: 4,
  });
  migration = new WindowPlanner(timers, tasks, slices, async () => undefined, 1500, createLogger('silent'));
});
beforeEach(async () => {
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`]);
});
afterAll(async () => {
  await stores.cleanup();
});

/** Every run in the slices, by timer. */
async function sliceRunsByTimer(): Promise<Map<number, number[]>> {
  const found = new Map<number, number[]>();
  for (const run of await sliceRuns(stores.redis, stores.config.prefix)) {
    found.set(run.timerId, [...(found.get(run.timerId) ?? []), run.runAt]);
  }
  return found;
}

const iso = (runs: number[]) => [...runs].sort((a, b) => a - b).map((t) => new Date(t).toISOString());

const transitions = ['America/New_York', 'Australia/Lord_Howe'].flatMap((zone) =>
  offsetChangesOf(zone, Date.UTC(2027, 0, 1), Date.UTC(2028, 0, 1)).map(
    (change) => [zone, new Date(change).toISOString(), change] as const,
  ),
);

describe('the migrator across DST transitions', () => {
  it('has a fall-back and a spring-forward in each zone', () => {
    expect(transitions).toHaveLength(4);
  });

  it.each(transitions)(
    '%s at %s: every window plans the reference’s instants, none lost or doubled',
    async (zone, _, change) => {
      // Windows are UTC-aligned (Lord Howe changes on the half hour).
      const start = windowAt(change - 5 * HOUR, STEP_MINUTES).start;
      const end = windowAt(change + 5 * HOUR, STEP_MINUTES).start;
      const created = [];
      for (const cron of CRONS) {
        const t = await timers.insert(
          testDraft({ app: 'dst', name: cron, cron, timezone: zone, status: 'active' }),
        );
        await timers.setPlannedUntil([t.id], start);
        created.push({ id: t.id, cron });
      }
      // The clock moves a window at a time; each run materialises up to the end of the next window.
      for (
        let now = start - STEP_MINUTES * 60_000;
        planHorizon(now, STEP_MINUTES) <= end;
        now += STEP_MINUTES * 60_000
      ) {
        await migration.run(planHorizon(now, STEP_MINUTES), now);
      }
      const scan = scanWallClock(zone, start - 30 * HOUR, end + 30 * HOUR);
      const inSlices = await sliceRunsByTimer();
      for (const { id, cron } of created) {
        const expected = iso(referenceRuns(cron, scan, start, end));
        expect(expected.length, cron).toBeGreaterThan(0);
        const rows = await tasks.listForTimer({ timerId: id, limit: 2000 });
        expect({ cron, mysql: iso(rows.map((r) => r.runAt)) }).toEqual({ cron, mysql: expected });
        expect({ cron, slices: iso(inSlices.get(id) ?? []) }).toEqual({ cron, slices: expected });
      }
    },
  );
});
