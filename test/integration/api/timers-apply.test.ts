import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { TaskRepository } from '../../../src/storage/db/tasks/task-repository.js';
import { call, createTestApp } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Declarative apply: POST /api/v1/apps/{app}/apply compares a set of timers
 * with the app's by name and returns the plan; a dry run changes nothing, a real one
 * carries it out all or nothing, audited under one batch id. The same set applied twice
 * is all unchanged and plans no run twice; prune deletes exactly the timers left out.
 */

const NOW = Date.UTC(2030, 0, 1, 10, 17, 30);

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('apply');
  core = createTestCore(stores, () => NOW);
  app = createTestApp(core);
});
afterAll(async () => {
  await stores.cleanup();
});

const timer = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  cron: '0 * * * * *',
  status: 'active',
  callback: { url: 'http://127.0.0.1:9/hooks/run' },
  ...overrides,
});

const apply = (appName: string, body: Record<string, unknown>) =>
  call(app, 'POST', `/api/v1/apps/${appName}/apply`, body);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [rows] = await stores.database.pool.query(`SELECT COUNT(*) AS n FROM ${sql}`, params);
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

async function stateOf(appName: string) {
  const [timers] = await stores.database.pool.query(
    'SELECT id, name, cron, status, version FROM timers WHERE app = ? ORDER BY name',
    [appName],
  );
  const tasks = await count('tasks WHERE app = ?', [appName]);
  const audit = await count('audit_log WHERE app = ?', [appName]);
  return { timers, tasks, audit };
}

describe('an apply beside the migrator', () => {
  it("re-plans from the timer's count of runs as it is under the lock, not as it was read", async () => {
    expect((await call(app, 'PUT', '/api/v1/apps/capped/timers/c', timer('c', { maxRuns: 50 }))).status).toBe(
      201,
    );
    const [[row]] = (await stores.database.pool.query("SELECT id FROM timers WHERE app = 'capped'")) as any;
    // The migrator's top-up lands after the apply read the timers: three more runs, no new version.
    const timers = (core.timers.asCode as any).store.timers;
    const read = timers.listByApp.bind(timers);
    timers.listByApp = async (...args: unknown[]) => {
      const seen = await read(...args);
      timers.listByApp = read;
      const [[{ until }]] = (await stores.database.pool.query(
        'SELECT planned_until AS until FROM timers WHERE id = ?',
        [row.id],
      )) as any;
      const more = [0, 1, 2].map((m) => ({
        timerId: row.id,
        app: 'capped',
        runAt: until.getTime() + m * 60_000,
        version: 1,
      }));
      await new TaskRepository(stores.database.db, stores.database.pool).insertRuns(more);
      await stores.database.pool.query('UPDATE timers SET runs_planned = runs_planned + 3 WHERE id = ?', [
        row.id,
      ]);
      return seen;
    };
    expect(
      (await apply('capped', { timers: [timer('c', { maxRuns: 50, cron: '30 * * * * *' })] })).status,
    ).toBe(200);
    const [[after]] = (await stores.database.pool.query('SELECT runs_planned AS n FROM timers WHERE id = ?', [
      row.id,
    ])) as any;
    expect(Number(after.n)).toBe(
      await count("tasks WHERE timer_id = ? AND run_trigger = 'schedule'", [row.id]),
    );
  });
});

describe('POST /api/v1/apps/{app}/apply', () => {
  it('plans without changing anything on a dry run, then applies the same plan', async () => {
    await call(app, 'PUT', '/api/v1/apps/shop/timers/stays', timer('stays'));
    await call(app, 'PUT', '/api/v1/apps/shop/timers/changes', timer('changes'));
    await call(app, 'PUT', '/api/v1/apps/shop/timers/left-out', timer('left-out'));
    const before = await stateOf('shop');
    const set = [
      timer('stays'),
      timer('changes', { cron: '30 * * * * *', description: 'slower' }),
      timer('new'),
    ];

    const dry = await apply('shop', { timers: set, prune: false, dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toEqual({
      applied: false,
      planId: expect.stringMatching(/^[0-9a-f]{16}$/),
      plan: [
        { name: 'stays', action: 'unchanged' },
        {
          name: 'changes',
          action: 'update',
          changes: {
            cron: { before: '0 * * * * *', after: '30 * * * * *' },
            description: { before: null, after: 'slower' },
          },
        },
        { name: 'new', action: 'create' },
      ],
    });
    expect(await stateOf('shop')).toEqual(before);

    const real = await apply('shop', { timers: set });
    expect(real.status).toBe(200);
    expect(real.body).toEqual({ ...dry.body, applied: true, batchId: expect.any(String) });
    const after = await stateOf('shop');
    const byName = Object.fromEntries((after.timers as any[]).map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['changes', 'left-out', 'new', 'stays']);
    expect(byName.changes).toMatchObject({ cron: '30 * * * * *', version: 2 });
    expect(byName.stays.version).toBe(1);
    expect(await count('tasks WHERE timer_id = ?', [byName.new.id])).toBeGreaterThan(0);

    // Every change in the audit log under the apply's batch id, and only those.
    const audit = await call(app, 'GET', `/api/v1/audit?batchId=${real.body.batchId}`);
    expect(audit.body.items.map((e: any) => [e.action, e.timerId]).sort()).toEqual(
      [
        ['create', byName.new.id],
        ['update', byName.changes.id],
      ].sort(),
    );

    // The same set again: all unchanged, nothing written, no run planned twice.
    const again = await apply('shop', { timers: set });
    expect(again.body).toEqual({
      applied: true,
      planId: expect.any(String),
      plan: set.map((t) => ({ name: t.name, action: 'unchanged' })),
    });
    expect(await stateOf('shop')).toEqual(after);
    const [dupes] = await stores.database.pool.query(
      "SELECT timer_id, run_at, COUNT(*) AS n FROM tasks WHERE app = 'shop' GROUP BY timer_id, run_at HAVING n > 1",
    );
    expect(dupes).toEqual([]);
  });

  it('prunes exactly the timers the set leaves out, with their runs', async () => {
    const set = ['a', 'b', 'c', 'd'].map((n) => timer(n));
    expect((await apply('pruned', { timers: set })).status).toBe(200);
    const ids = Object.fromEntries(((await stateOf('pruned')).timers as any[]).map((t) => [t.name, t.id]));
    // Another app's timer of the same name is not touched.
    await call(app, 'PUT', '/api/v1/apps/neighbour/timers/b', timer('b'));

    const dry = await apply('pruned', { timers: [set[0], set[2]], prune: true, dryRun: true });
    expect(dry.body.plan).toEqual([
      { name: 'a', action: 'unchanged' },
      { name: 'c', action: 'unchanged' },
      { name: 'b', action: 'delete' },
      { name: 'd', action: 'delete' },
    ]);
    expect(await count("timers WHERE app = 'pruned'")).toBe(4);
    // Without prune, the timers left out stay.
    expect((await apply('pruned', { timers: [set[0]] })).body.plan).toEqual([
      { name: 'a', action: 'unchanged' },
    ]);
    expect(await count("timers WHERE app = 'pruned'")).toBe(4);

    const real = await apply('pruned', { timers: [set[0], set[2]], prune: true });
    expect(real.body.applied).toBe(true);
    const left = ((await stateOf('pruned')).timers as any[]).map((t) => t.name);
    expect(left).toEqual(['a', 'c']);
    expect(await count('tasks WHERE timer_id IN (?, ?)', [ids.b, ids.d])).toBe(0);
    expect(await count('tasks WHERE timer_id IN (?, ?)', [ids.a, ids.c])).toBeGreaterThan(0);
    expect(await count("timers WHERE app = 'neighbour' AND name = 'b'")).toBe(1);
  });

  it('stores nothing when one timer of 1,000 is invalid, naming its index and field', async () => {
    const set = Array.from({ length: 1000 }, (_, i) => timer(`t-${String(i).padStart(4, '0')}`));
    set[637] = timer('t-0637', { timezone: 'Mars/Olympus' });
    const before = await stateOf('big');
    const res = await apply('big', { timers: set });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_TIMEZONE');
    expect(res.body.error.message).toMatch(/^timers\.637\.timezone: /);
    expect(await stateOf('big')).toEqual(before);

    // A failure only the service sees (a one-shot time already past) names its index too.
    set[637] = timer('t-0637', { cron: null, at: '2029-12-31T00:00:00Z' });
    const past = await apply('big', { timers: set });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toMatch(/^timers\.637: at: /);
    expect(await stateOf('big')).toEqual(before);

    // A name twice.
    set[637] = timer('t-0001');
    const twice = await apply('big', { timers: set });
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/^timers\.637: name: /);
    expect(await count("timers WHERE app = 'big'")).toBe(0);

    // Fixed, the 1,000 are created at once.
    set[637] = timer('t-0637');
    const ok = await apply('big', { timers: set });
    expect(ok.status).toBe(200);
    expect(ok.body.plan.every((s: any) => s.action === 'create')).toBe(true);
    expect(await count("timers WHERE app = 'big'")).toBe(1000);
  });

  it('takes a body over 1 MiB, up to 16 MiB', async () => {
    const description = 'd'.repeat(600);
    const set = Array.from({ length: 3000 }, (_, i) => timer(`big-${i}`, { description }));
    const res = await apply('roomy', { timers: set, dryRun: true });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.plan).toHaveLength(3000);
    const huge = await call(
      app,
      'POST',
      '/api/v1/apps/roomy/apply',
      `{"timers":[],"x":"${'y'.repeat(17 * 1024 * 1024)}"}`,
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses more than 5,000 timers, and an app in a timer', async () => {
    const many = await apply('huge', {
      timers: Array.from({ length: 5001 }, (_, i) => timer(`n${i}`)),
      dryRun: true,
    });
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/^timers: /);
    const withApp = await apply('huge', { timers: [{ ...timer('x'), app: 'huge' }] });
    expect(withApp.status).toBe(400);
    expect(withApp.body.error.message).toMatch(/^timers\.0/);
  });
});

describe('a dry run', () => {
  it('refuses what the apply would: an enable of a timer with no run left, 409 TIMER_COMPLETED', async () => {
    expect(
      (await apply('spent', { timers: [timer('capped', { maxRuns: 2, status: 'inactive' })] })).status,
    ).toBe(200);
    // It made its two runs before it was disabled.
    await stores.database.pool.query("UPDATE timers SET runs_planned = 2 WHERE app = 'spent'");
    const enabled = { timers: [timer('capped', { maxRuns: 2 })] };
    const dry = await apply('spent', { ...enabled, dryRun: true });
    const real = await apply('spent', enabled);
    for (const res of [dry, real]) {
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'TIMER_COMPLETED', details: [{ path: 'timers.0' }] });
    }
  });
});

describe('planId', () => {
  it('carries out the plan a dry run showed, or none: a timer created since is not pruned unseen', async () => {
    const set = { timers: [timer('kept')], prune: true };
    const dry = await apply('planned', { ...set, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.planId).toMatch(/^[0-9a-f]{16}$/);
    // Someone adds a timer while the plan is read and confirmed.
    expect((await call(app, 'PUT', '/api/v1/apps/planned/timers/newcomer', timer('newcomer'))).status).toBe(
      201,
    );

    const stale = await apply('planned', { ...set, planId: dry.body.planId });
    expect(stale.status, JSON.stringify(stale.body)).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 'VERSION_CONFLICT', details: [{ path: 'planId' }] });
    expect(await count("timers WHERE app = 'planned'")).toBe(1);

    const again = await apply('planned', { ...set, dryRun: true });
    expect(again.body.plan.map((s: { action: string }) => s.action)).toEqual(['create', 'delete']);
    const applied = await apply('planned', { ...set, planId: again.body.planId });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body).toMatchObject({ applied: true, planId: again.body.planId });
    expect((await stateOf('planned')).timers).toEqual([expect.objectContaining({ name: 'kept' })]);
  });
});
