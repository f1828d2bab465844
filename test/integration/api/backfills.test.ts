import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { keptADayFrom } from '../../../src/domain/plan/day-partitions.js';
import { createLogger } from '../../../src/observability/logger.js';
import { BACKFILL_RECHECK_MS, BackfillPacer } from '../../../src/services/runs/backfill-pacer.js';
import { BackfillRepository } from '../../../src/storage/db/backfill-repository.js';
import { sqlDateTime } from '../../../src/storage/db/multi-row-insert.js';
import { TaskRepository } from '../../../src/storage/db/tasks/task-repository.js';
import type { ExecuteJob, QueuedRun } from '../../../src/storage/redis/queues.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../helpers/stores.js';

/**
 * Backfills: a backfill runs a timer's schedule over a past range, leaves alone the
 * runs the history has, is paced at BACKFILL_RATE across ticks, can be cancelled, and
 * queues again the runs it sent that never ended. The pacer's jobs are caught at its
 * dispatch seam; the executor's side is test/e2e/backfill.test.ts.
 */
let stores: TestStores;
let core: Core;
let app: App;
let now = Date.now();
const RATE = 50;

beforeAll(async () => {
  stores = await createTestStores('backfills');
  core = createTestCore(stores, () => now);
  app = createTestApp(core);
});
afterAll(async () => {
  await stores.cleanup();
});

/** A pacer whose queued runs are kept, in order (`again`: queued by a later round). */
function pacer() {
  const queued: Array<{ run: QueuedRun; again: boolean }> = [];
  const p = new BackfillPacer({
    database: core.database,
    ratePerSecond: RATE,
    logger: createLogger('silent'),
    dispatch: async (jobs: ExecuteJob[]) => {
      for (const job of jobs) {
        const runs = 'runs' in job.data ? job.data.runs : [job.data];
        for (const run of runs) queued.push({ run, again: false });
      }
    },
    requeue: async (runs: QueuedRun[]) => {
      for (const run of runs) queued.push({ run, again: true });
    },
  });
  return { pacer: p, queued };
}

const everySecond = async (name: string) => {
  const res = await call(
    app,
    'POST',
    '/api/v1/timers',
    timerBody({ name, cron: '* * * * * *', status: 'inactive' }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; app: string };
};
/** A run's outcome as the executor would record it. */
const end = (timerId: number, runAt: number, status: string) =>
  core.database.pool.query('UPDATE tasks SET status = ?, attempts = 1 WHERE timer_id = ? AND run_at = ?', [
    status,
    timerId,
    sqlDateTime(runAt),
  ]);
const second = (ms: number) => Math.floor(ms / 1000) * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const startBackfill = (id: number, body: Record<string, unknown>) =>
  call(app, 'POST', `/api/v1/timers/${id}/backfills`, body);

describe('starting a backfill', () => {
  it("previews, then plans the schedule's runs in [from, to), leaving alone those the history has", async () => {
    const timer = await everySecond('bf-plan');
    const from = second(now) - 300_000;
    const to = from + 200_000;
    await recordRun(core.database, {
      timerId: timer.id,
      app: timer.app,
      runAt: from + 5000,
      status: 'missed',
    });
    await recordRun(core.database, {
      timerId: timer.id,
      app: timer.app,
      runAt: from + 6000,
      status: 'failed',
    });

    // Its preview says the same counts, and starts nothing.
    const preview = await call(app, 'POST', `/api/v1/timers/${timer.id}/backfills/preview`, {
      from: iso(from),
      to: iso(to),
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toEqual({ runs: 200, planned: 198 });
    expect((await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills`)).body.items).toEqual([]);

    const res = await startBackfill(timer.id, { from: iso(from), to: iso(to) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({
      timerId: timer.id,
      from: iso(from),
      to: iso(to),
      status: 'sending',
      runs: 200,
      planned: 198,
      sent: 0,
      done: 0,
      progress: { pending: 198 },
    });
    const got = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${res.body.id}`);
    expect(got.body).toMatchObject({ id: res.body.id, planned: 198 });
    const listed = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills`);
    expect(listed.body.items.map((b: { id: number }) => b.id)).toEqual([res.body.id]);

    // The history's runs kept their status and trigger; the backfill's are pending, trigger backfill.
    const tasks = new TaskRepository(core.database.db, core.database.pool);
    expect(await tasks.find(timer.id, from + 5000)).toMatchObject({ status: 'missed', trigger: 'schedule' });
    expect(await tasks.find(timer.id, from)).toMatchObject({ status: 'pending', trigger: 'backfill' });
    // Neither the compensator nor a slice rebuild sweeps them as overdue scheduled runs.
    const overdue = await tasks.overduePending(now, 10_000);
    expect(overdue.runs.filter((r) => r.timerId === timer.id)).toEqual([]);
  });

  it('refuses a to after now, an empty range, more than 10,000 runs, and a range a running backfill covers', async () => {
    const timer = await everySecond('bf-refuse');
    const future = await startBackfill(timer.id, { from: iso(now - 10_000), to: iso(now + 10_000) });
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(future.body.error.message).toMatch(/^to: /);
    const empty = await startBackfill(timer.id, { from: iso(now - 10_000), to: iso(now - 10_000) });
    expect(empty.status).toBe(400);
    const huge = await startBackfill(timer.id, { from: iso(now - 4 * 3600_000), to: iso(now - 3600_000) });
    expect(huge.status).toBe(400);
    expect(huge.body.error.code).toBe('BACKFILL_TOO_LARGE');
    // Its preview refuses it the same way.
    const tooLong = { from: iso(now - 4 * 3600_000), to: iso(now - 3600_000) };
    const previewed = await call(app, 'POST', `/api/v1/timers/${timer.id}/backfills/preview`, tooLong);
    expect(previewed.status).toBe(400);
    expect(previewed.body.error.code).toBe('BACKFILL_TOO_LARGE');
    const bad = await startBackfill(timer.id, { from: 'yesterday', to: iso(now) });
    expect(bad.status).toBe(400);
    // The run history keeps TASK_RETENTION_DAYS (7): a backfill reaches no further back.
    const old = await startBackfill(timer.id, {
      from: iso(now - 8 * 86_400_000),
      to: iso(now - 8 * 86_400_000 + 60_000),
    });
    expect(old.status).toBe(400);
    expect(old.body.error.message).toMatch(/^from: .*TASK_RETENTION_DAYS/);
    // Nor into its oldest day, dropped within a day with the runs the backfill would make there.
    const edge = keptADayFrom(now, 7);
    const oldest = await startBackfill(timer.id, { from: iso(edge - 1000), to: iso(edge + 1000) });
    expect(oldest.status).toBe(400);
    expect(oldest.body.error.details).toEqual([
      { path: 'from', message: `must be ${new Date(edge).toISOString()} or later` },
    ]);

    const first = await startBackfill(timer.id, { from: iso(now - 100_000), to: iso(now - 50_000) });
    expect(first.status).toBe(202);
    const over = await startBackfill(timer.id, { from: iso(now - 60_000), to: iso(now - 20_000) });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({
      code: 'BACKFILL_OVERLAPS',
      details: [{ path: 'from', message: `overlaps backfill ${first.body.id}, which is still under way` }],
    });
    const beside = await startBackfill(timer.id, { from: iso(now - 50_000), to: iso(now - 20_000) });
    expect(beside.status).toBe(202);

    // Two at once over one range: the timer's row lock lets one in; the other sees it.
    const other = await everySecond('bf-race');
    const range = { from: iso(now - 100_000), to: iso(now - 50_000) };
    const raced = await Promise.all([startBackfill(other.id, range), startBackfill(other.id, range)]);
    expect(raced.map((r) => r.status).sort()).toEqual([202, 409]);

    const unknown = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/999999`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('BACKFILL_NOT_FOUND');
  });
});

describe('a retry near the history’s edge', () => {
  it('is refused for a run in the history’s oldest day, whose row is dropped within a day', async () => {
    const timer = await everySecond('bf-oldest');
    const runAt = second(keptADayFrom(now, 7)) - 5000;
    await recordRun(core.database, { timerId: timer.id, app: timer.app, runAt, status: 'failed' });
    const res = await call(app, 'POST', `/api/v1/timers/${timer.id}/tasks/${timer.id}_${runAt}/retry`);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe('TASK_NOT_RETRYABLE');
    expect(res.body.error.message).toMatch(/oldest day/);
  });
});

describe('the pacer', () => {
  it('queues the runs in run order at BACKFILL_RATE, each once, as backfill runs', async () => {
    const timer = await everySecond('bf-pace');
    const from = second(now) - 600_000;
    const started = await startBackfill(timer.id, {
      from: iso(from),
      to: iso(from + 120_000),
      overlapPolicy: 'skip',
    });
    const { pacer: p, queued } = pacer();
    const mine = () => queued.filter((q) => q.run.timerId === timer.id);

    now += 10_000;
    await p.tick(now);
    // At most a second's worth at once, however long since it was last paced.
    expect(mine()).toHaveLength(RATE);
    await p.tick(now);
    expect(mine()).toHaveLength(RATE);
    now += 200;
    await p.tick(now);
    expect(mine()).toHaveLength(RATE + RATE / 5);
    for (let i = 0; i < 20; i++) {
      now += 1000;
      await p.tick(now);
    }
    const runs = mine().map((q) => q.run);
    expect(runs.map((r) => r.runAt)).toEqual(Array.from({ length: 120 }, (_, i) => from + i * 1000));
    expect(runs.every((r) => r.trigger === 'backfill' && r.overlapPolicy === 'skip')).toBe(true);
    expect(mine().some((q) => q.again)).toBe(false);
    const got = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(got.body).toMatchObject({ status: 'sent', sent: 120, progress: { pending: 120 } });
  });

  it('queues again, at its pace, runs still pending a while after their round, and completes once all have ended', async () => {
    const timer = await everySecond('bf-recheck');
    const from = second(now) - 600_000;
    const started = await startBackfill(timer.id, { from: iso(from), to: iso(from + 10_000) });
    const { pacer: p, queued } = pacer();
    const mine = () => queued.filter((q) => q.run.timerId === timer.id);
    now += 1000;
    await p.tick(now);
    expect(mine()).toHaveLength(10);
    // 8 ended; 2 never did (their jobs were lost with Redis).
    for (let i = 0; i < 8; i++) await end(timer.id, from + i * 1000, 'succeeded');
    now += BACKFILL_RECHECK_MS - 1000;
    await p.tick(now);
    now += 500;
    await p.tick(now);
    expect(mine()).toHaveLength(10);
    now += 500;
    await p.tick(now); // another round begins
    now += 1000;
    await p.tick(now);
    const again = mine().slice(10);
    expect(again.map((q) => q.run.runAt)).toEqual([from + 8000, from + 9000]);
    expect(again.every((q) => q.again && q.run.trigger === 'backfill')).toBe(true);

    for (const at of [from + 8000, from + 9000]) await end(timer.id, at, 'failed');
    now += 1000;
    await p.tick(now);
    now += 1000;
    await p.tick(now);
    const got = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(got.body).toMatchObject({ status: 'completed', sent: 10, done: 10, failed: 2 });
  });

  it('keeps a run a user retries as its own: counted until it ends, left to the compensator, not sent again', async () => {
    const timer = await everySecond('bf-retried');
    const from = second(now) - 600_000;
    const started = await startBackfill(timer.id, { from: iso(from), to: iso(from + 3000) });
    const { pacer: p, queued } = pacer();
    now += 1000;
    await p.tick(now);
    await end(timer.id, from, 'succeeded');
    await end(timer.id, from + 1000, 'succeeded');
    await end(timer.id, from + 2000, 'failed');
    const retried = await call(
      app,
      'POST',
      `/api/v1/timers/${timer.id}/tasks/${timer.id}_${from + 2000}/retry`,
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);

    const got = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(got.body).toMatchObject({ status: 'sent', done: 2, progress: { pending: 1, succeeded: 2 } });
    // Another round sends nothing: the retry's own job carries it, and the compensator watches it.
    now += BACKFILL_RECHECK_MS + 1000;
    await p.tick(now);
    now += 1000;
    await p.tick(now);
    expect(queued.filter((q) => q.run.timerId === timer.id)).toHaveLength(3);
    const tasks = new TaskRepository(core.database.db, core.database.pool);
    const overdue = await tasks.overduePending(now, 10_000);
    expect(overdue.runs.filter((r) => r.timerId === timer.id).map((r) => r.trigger)).toEqual(['retry']);

    // Nor does it start rounds for it.
    const [rounds] = await core.database.pool.query('SELECT round FROM backfills WHERE id = ?', [
      started.body.id,
    ]);
    expect((rounds as Array<{ round: number }>)[0]!.round).toBe(0);
    await end(timer.id, from + 2000, 'succeeded');
    const ended = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(ended.body).toMatchObject({ status: 'completed', done: 3 });

    // Retried again once the pacer has seen it end: under way until that run ends.
    now += 2000;
    await p.tick(now);
    await end(timer.id, from + 2000, 'failed');
    await call(app, 'POST', `/api/v1/timers/${timer.id}/tasks/${timer.id}_${from + 2000}/retry`);
    const reopened = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(reopened.body).toMatchObject({ status: 'sent', progress: { pending: 1 } });
    // Its Cancel (the console offers one while it reads sent) stops it being waited for.
    const cancelled = await call(app, 'DELETE', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', progress: { pending: 1 } });
  });

  it('reads completed once all its runs ended, before the pacer looks again; the same range again plans nothing', async () => {
    const timer = await everySecond('bf-done');
    const from = second(now) - 300_000;
    const range = { from: iso(from), to: iso(from + 5000) };
    const started = await startBackfill(timer.id, range);
    const { pacer: p, queued } = pacer();
    now += 1000;
    await p.tick(now);
    expect(queued.filter((q) => q.run.timerId === timer.id)).toHaveLength(5);
    for (let i = 0; i < 5; i++) await end(timer.id, from + i * 1000, 'succeeded');
    // The pacer has not looked since: its stage is still "sent".
    const got = await call(app, 'GET', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(got.body).toMatchObject({ status: 'completed', done: 5 });
    // Completed, it is not cancelled after the fact.
    const late = await call(app, 'DELETE', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(late.body).toMatchObject({ status: 'completed' });
    const again = await startBackfill(timer.id, range);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.body).toMatchObject({ planned: 0 });
  });

  it('stops at a cancel: the runs not yet sent are removed, the sent ones stay', async () => {
    const timer = await everySecond('bf-cancel');
    const from = second(now) - 600_000;
    const started = await startBackfill(timer.id, { from: iso(from), to: iso(from + 200_000) });
    const { pacer: p, queued } = pacer();
    now += 1000;
    await p.tick(now);
    const cancelled = await call(app, 'DELETE', `/api/v1/timers/${timer.id}/backfills/${started.body.id}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', sent: RATE, progress: { pending: RATE } });
    now += 5000;
    await p.tick(now);
    expect(queued.filter((q) => q.run.timerId === timer.id)).toHaveLength(RATE);
    const audit = await call(app, 'GET', `/api/v1/audit?timerId=${timer.id}`);
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['backfill', 'backfill_cancel']),
    );
  });
});

describe('pacing across apps', () => {
  it('takes turns by app: an app with more backfills under way than a tick paces does not crowd out another app’s', async () => {
    const repo = new BackfillRepository(core.database.db, core.database.pool);
    const row = (app: string, updatedAt: string) =>
      `(1, '${app}', '2030-01-01 00:00:00', '2030-01-02 00:00:00', 'sending', 10, 10, '2030-01-01 00:00:00', '${updatedAt}')`;
    const crowd = Array.from({ length: 30 }, (_, i) =>
      row('crowd', `2020-01-01 00:00:${String(i).padStart(2, '0')}`),
    );
    await core.database.pool.query(
      `INSERT INTO backfills (timer_id, app, from_at, to_at, status, runs, planned, cursor_at, updated_at)
       VALUES ${[...crowd, row('quiet', '2020-01-01 00:01:00')].join(',')}`,
    );
    try {
      const [rows] = await core.database.pool.query("SELECT id FROM backfills WHERE app = 'quiet'");
      const quiet = Number((rows as Array<{ id: number }>)[0]!.id);
      expect(await repo.underway(20)).toContain(quiet);
    } finally {
      await core.database.pool.query("DELETE FROM backfills WHERE app IN ('crowd', 'quiet')");
    }
  });
});
