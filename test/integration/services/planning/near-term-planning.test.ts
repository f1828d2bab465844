import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Core } from '../../../../src/core.js';
import type { TimerDraft } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { buildMigrationRunner } from '../../../../src/services/planning/build-migration-runner.js';
import type { MigrationRunner } from '../../../../src/services/planning/migration-runner.js';
import { WindowPlanner } from '../../../../src/services/planning/window-planner.js';
import { INTERNAL } from '../../../../src/services/timers/access.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { sliceRuns } from '../../../helpers/slices.js';
import {
  createTestCore,
  createTestStores,
  deleteKeys,
  eventually,
  type TestStores,
} from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/**
 * Creates at scale: a create of a dense schedule plans only the near term
 * (to the end of the minute after next) and the migrator's top-up plans the rest; a
 * sparse one is planned to the full horizon at once. Across the boundary
 * between the two every run exists once in MySQL and once in the slices: none missing,
 * none doubled, including when a schedule change races the top-up.
 */

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-01T10:00:00Z');
/** MIGRATE_STEP_MINUTES 60: planned to the end of the next window. */
const HORIZON_AT_10 = Date.parse('2030-01-01T12:00:00Z');

let stores: TestStores;
let core: Core;
let runner: MigrationRunner;
let clock = T0;
const silent = createLogger('silent');

async function create(name: string, cron: string, rest: Partial<TimerDraft> = {}) {
  return core.timers.definitions.create(
    INTERNAL,
    testDraft({
      app: 'near',
      name,
      cron,
      callback: { url: 'http://127.0.0.1:9/x', method: 'POST', headers: {}, body: null, timeoutMs: 1000 },
      ...rest,
    }),
  );
}

/** A planner over these timers (a test's stand-in that races a change), queuing nothing. */
function plannerOver(timers: TimerRepository): WindowPlanner {
  return new WindowPlanner(
    timers,
    new TaskRepository(stores.database.db, stores.database.pool),
    core.slices,
    async () => undefined,
    stores.config.prereadMs,
    silent,
  );
}

/** A minute's whole top-up: its first pass, then the further ones. */
async function topUpAll(on: MigrationRunner = runner): Promise<void> {
  await on.topUp();
  await on.topUpFurther();
}

/** The timer's runs in MySQL, in time order. */
async function runsInMysql(timerId: number): Promise<Array<{ runAt: number; version: number }>> {
  const [rows] = await stores.database.pool.query(
    'SELECT run_at, timer_version FROM tasks WHERE timer_id = ? ORDER BY run_at',
    [timerId],
  );
  return (rows as Array<{ run_at: Date; timer_version: number }>).map((r) => ({
    runAt: r.run_at.getTime(),
    version: r.timer_version,
  }));
}

async function plannedUntil(timerId: number): Promise<number> {
  const [rows] = await stores.database.pool.query('SELECT planned_until FROM timers WHERE id = ?', [timerId]);
  return (rows as Array<{ planned_until: Date }>)[0]!.planned_until.getTime();
}

/** How many slice members each of the timer's run instants has. */
async function runsInSlices(timerId: number): Promise<Map<number, number>> {
  const found = new Map<number, number>();
  for (const r of await sliceRuns(stores.redis, stores.config.prefix)) {
    if (r.timerId === timerId) found.set(r.runAt, (found.get(r.runAt) ?? 0) + 1);
  }
  return found;
}

/** Every `stepMs` in [from, to). */
function instants(from: number, to: number, stepMs: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += stepMs) out.push(t);
  return out;
}

beforeAll(async () => {
  stores = await createTestStores('nearterm');
  core = createTestCore(stores, () => clock);
  runner = buildMigrationRunner(core, silent);
});
beforeEach(async () => {
  await stores.database.pool.query('DELETE FROM tasks');
  await stores.database.pool.query('DELETE FROM timers');
  await deleteKeys(stores.redis, [`${stores.config.prefix}*`, `{${stores.name}}:*`]);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

describe('near-term planning and the top-up', () => {
  it('plans a dense timer to the end of the minute after next; the top-up plans the rest, each run once', async () => {
    clock = T0 + 20_000;
    const everySecond = await create('every-second', '* * * * * *');
    const hourly = await create('hourly', '0 0 * * * *');
    const nearEnd = T0 + 3 * MINUTE;

    expect((await runsInMysql(everySecond.id)).map((r) => r.runAt)).toEqual(instants(clock, nearEnd, 1000));
    expect(await plannedUntil(everySecond.id)).toBe(nearEnd);
    // Hourly is sparse: its one run before the horizon is planned at once.
    expect((await runsInMysql(hourly.id)).map((r) => r.runAt)).toEqual([Date.parse('2030-01-01T11:00:00Z')]);
    expect(await plannedUntil(hourly.id)).toBe(HORIZON_AT_10);

    clock = T0 + MINUTE + 1000;
    await topUpAll();

    const expected = instants(T0 + 20_000, HORIZON_AT_10, 1000);
    expect((await runsInMysql(everySecond.id)).map((r) => r.runAt)).toEqual(expected);
    const inSlices = await runsInSlices(everySecond.id);
    expect([...inSlices.keys()].sort((a, b) => a - b)).toEqual(expected);
    expect([...inSlices.values()].every((n) => n === 1)).toBe(true);
    expect((await runsInMysql(hourly.id)).map((r) => r.runAt)).toEqual([Date.parse('2030-01-01T11:00:00Z')]);
    expect(await plannedUntil(everySecond.id)).toBe(HORIZON_AT_10);
    expect(await plannedUntil(hourly.id)).toBe(HORIZON_AT_10);
  });

  it("writes every topped-up timer's next minutes before any timer's runs further out", async () => {
    clock = T0 + 20_000;
    const timers = [await create('first', '* * * * * *'), await create('second', '* * * * * *')];
    clock = T0 + MINUTE + 1000;
    await topUpAll();

    // Row ids follow the writes. Planned timer by timer, the second timer's next minutes
    // came after the first one's whole window: with thousands of dense timers, after they
    // were due. Pass by pass, every run before each pass's end was written before any after it.
    const idOf = async (sql: string, ...at: number[]) => {
      const [rows] = await stores.database.pool.query(
        sql,
        at.map((ms) => new Date(ms)),
      );
      return (rows as Array<{ id: number }>)[0]!.id;
    };
    for (const end of [6, 16, 46].map((m) => T0 + m * MINUTE)) {
      const before = await idOf(
        'SELECT MAX(id) AS id FROM tasks WHERE run_at >= ? AND run_at < ?',
        T0 + 3 * MINUTE,
        end,
      );
      const after = await idOf('SELECT MIN(id) AS id FROM tasks WHERE run_at >= ?', end);
      expect(before).toBeLessThan(after);
    }
    for (const timer of timers) {
      expect((await runsInMysql(timer.id)).map((r) => r.runAt)).toEqual(
        instants(T0 + 20_000, HORIZON_AT_10, 1000),
      );
      expect(await plannedUntil(timer.id)).toBe(HORIZON_AT_10);
    }
  });

  it('tops up once a minute whichever migrator asks, and leaves fully planned timers alone', async () => {
    clock = T0 + 20_000;
    const timer = await create('once', '* * * * * *');
    clock = T0 + MINUTE + 1000;
    // A second migrator in the same minute finds the minute's lock taken.
    await Promise.all([topUpAll(), topUpAll()]);
    expect(await runsInMysql(timer.id)).toHaveLength((HORIZON_AT_10 - (T0 + 20_000)) / 1000);

    // Runs deleted behind its back are not re-planned: planned_until says they exist.
    await stores.database.pool.query('DELETE FROM tasks WHERE run_at >= ?', [new Date(T0 + 30 * MINUTE)]);
    clock = T0 + 2 * MINUTE + 1000;
    await topUpAll();
    expect(await runsInMysql(timer.id)).toHaveLength((T0 + 30 * MINUTE - (T0 + 20_000)) / 1000);
  });

  it('plans a timer created while the further passes run a few minutes on the next minute, without them', async () => {
    clock = T0 + 20_000;
    const early = await create('early', '* * * * * *');
    // The further passes' last one (to the horizon) is held, as thousands of dense timers hold it for minutes.
    const original = WindowPlanner.prototype.run;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const spy = vi.spyOn(WindowPlanner.prototype, 'run').mockImplementation(async function (
      this: WindowPlanner,
      ...args
    ) {
      if (args[0] === HORIZON_AT_10) await held;
      return original.apply(this, args);
    });
    let further: Promise<void> | undefined;
    try {
      clock = T0 + MINUTE + 1000;
      further = topUpAll();
      await eventually(async () => (await plannedUntil(early.id)) === T0 + 46 * MINUTE, 'the pass to 10:46');
      // Created meanwhile: planned to 10:04, two minutes and a half of runs.
      clock = T0 + MINUTE + 30_000;
      const late = await create('late', '* * * * * *');
      expect(await plannedUntil(late.id)).toBe(T0 + 4 * MINUTE);

      clock = T0 + 2 * MINUTE + 1000;
      await runner.topUp();
      expect(await plannedUntil(late.id)).toBe(T0 + 7 * MINUTE);
      expect(await plannedUntil(early.id)).toBe(T0 + 46 * MINUTE);

      release();
      await further;
      expect(await plannedUntil(early.id)).toBe(HORIZON_AT_10);
      clock = T0 + 3 * MINUTE + 1000;
      await topUpAll();
      expect((await runsInMysql(late.id)).map((r) => r.runAt)).toEqual(
        instants(T0 + MINUTE + 30_000, HORIZON_AT_10, 1000),
      );
    } finally {
      release();
      await further?.catch(() => undefined);
      spy.mockRestore();
    }
  });

  it('leaves the timers whose runs stop within 3 minutes to the first pass, which never writes them twice', async () => {
    clock = T0 + 20_000;
    const timer = await create('near-only', '* * * * * *');
    clock = T0 + MINUTE + 1000;
    // The further passes first (another migrator took the first pass's lock, or the
    // duties' timers fired the other way round): the near-term timer is not theirs.
    await runner.topUpFurther();
    expect(await plannedUntil(timer.id)).toBe(T0 + 3 * MINUTE);
    await runner.topUp();
    expect(await plannedUntil(timer.id)).toBe(T0 + 6 * MINUTE);
  });

  it('does not record a top-up over a schedule change made while it ran: the new schedule is planned too', async () => {
    clock = T0 + 20_000;
    const timer = await create('changed', '*/2 * * * * *');
    clock = T0 + MINUTE + 1000;

    // The top-up reads the timer as it is (version 1, even seconds); the change lands
    // before the top-up writes (version 2, odd seconds, planned from now to 10:04).
    let change: (() => Promise<unknown>) | undefined = () =>
      core.timers.definitions.update(INTERNAL, timer.id, { cron: '1/2 * * * * *' });
    class RacingTimers extends TimerRepository {
      override async pageToPlan(beforeMs: number, afterId: number, limit: number) {
        const page = await super.pageToPlan(beforeMs, afterId, limit);
        const run = change;
        change = undefined;
        await run?.();
        return page;
      }
    }
    const migration = plannerOver(new RacingTimers(stores.database.db));
    await migration.run(HORIZON_AT_10, clock, { selectBeforeMs: clock + 3 * MINUTE });
    expect(change).toBeUndefined();
    // The top-up's plan of the old schedule is not recorded over the change's.
    expect(await plannedUntil(timer.id)).toBe(T0 + 4 * MINUTE);

    clock = T0 + 2 * MINUTE + 1000;
    await topUpAll();
    expect(await plannedUntil(timer.id)).toBe(HORIZON_AT_10);
    const rows = await runsInMysql(timer.id);
    const atOrAfterChange = new Set(rows.filter((r) => r.runAt >= T0 + MINUTE + 1000).map((r) => r.runAt));
    // Every run of the new schedule from the change to the horizon exists.
    const missing = instants(T0 + MINUTE + 1000, HORIZON_AT_10, 2000).filter((t) => !atOrAfterChange.has(t));
    expect(missing).toEqual([]);
  });

  it("does not record a capped timer's plan over a change that left its runs ending where they did", async () => {
    clock = T0 + 20_000;
    const timer = await create('capped', '*/2 * * * * *', { maxRuns: 100_000 });
    // The change lands after the planner checked the version and before it records the
    // plan; made in the same minute as the create, it plans to the same end (10:03).
    let change: (() => Promise<unknown>) | undefined = () =>
      core.timers.definitions.update(INTERNAL, timer.id, { cron: '1/2 * * * * *' });
    class RacingTimers extends TimerRepository {
      override async activeVersions(ids: readonly number[]) {
        const versions = await super.activeVersions(ids);
        const run = change;
        change = undefined;
        await run?.();
        return versions;
      }
    }
    const migration = plannerOver(new RacingTimers(stores.database.db));
    await migration.run(HORIZON_AT_10, T0 + MINUTE + 1000, { selectBeforeMs: T0 + 4 * MINUTE });
    expect(change).toBeUndefined();
    // The old schedule's plan is not recorded: the next top-up plans the new one from 10:03.
    expect(await plannedUntil(timer.id)).toBe(T0 + 3 * MINUTE);
  });

  it('leaves a window stopped for shutdown to the next migrator at once, not when its lock lapses', async () => {
    clock = T0 + 20_000;
    const timer = await create('stopped', '0 * * * * *');
    await stores.database.pool.query('UPDATE timers SET planned_until = NULL WHERE id = ?', [timer.id]);
    await stores.database.pool.query('DELETE FROM tasks');
    const stopping = buildMigrationRunner(core, silent);
    stopping.stop();
    await stopping.migrate();
    expect(await runsInMysql(timer.id)).toEqual([]);

    await buildMigrationRunner(core, silent).migrate();
    expect((await runsInMysql(timer.id)).length).toBeGreaterThan(0);
    expect(await plannedUntil(timer.id)).toBe(HORIZON_AT_10);
  });

  it('leaves a window’s first minute to the migration, so a boundary plans each timer once', async () => {
    // Created in the minute before the 11:00 window starts: planned to 11:02.
    clock = T0 + 59 * MINUTE + 20_000;
    const dense = await create('dense', '* * * * * *');
    const horizonAt11 = HORIZON_AT_10 + 60 * MINUTE;
    const original = WindowPlanner.prototype.run;
    let underWay = 0;
    let most = 0;
    const planned: number[] = [];
    const spy = vi.spyOn(WindowPlanner.prototype, 'run').mockImplementation(async function (
      this: WindowPlanner,
      ...args
    ) {
      most = Math.max(most, ++underWay);
      try {
        const result = await original.apply(this, args);
        planned.push(result.runs);
        return result;
      } finally {
        underWay--;
      }
    });
    try {
      clock = T0 + 60 * MINUTE + 1000;
      const boundary = buildMigrationRunner(core, silent);
      await Promise.all([topUpAll(boundary), boundary.migrate()]);
      expect(most).toBe(1);
      expect(planned).toEqual([(horizonAt11 - (T0 + 62 * MINUTE)) / 1000]);
      expect(await plannedUntil(dense.id)).toBe(horizonAt11);
    } finally {
      spy.mockRestore();
    }
  });
});
