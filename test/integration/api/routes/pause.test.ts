import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { call, createTestApp, timerBody } from '../../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../../helpers/stores.js';

/** Pause with a note and an until, the sweep that resumes once, auto-pause. */

let stores: TestStores;
let core: Core;
let app: App;
let now = Date.UTC(2030, 0, 1, 10, 0, 0);

beforeAll(async () => {
  stores = await createTestStores('pause');
  core = createTestCore(stores, () => now);
  app = createTestApp(core);
});
afterAll(async () => {
  await stores.cleanup();
});

const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await call(app, 'POST', '/api/v1/timers', timerBody({ status: 'active', ...overrides }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const auditOf = async (id: number) =>
  (await call(app, 'GET', `/api/v1/audit?timerId=${id}`)).body.items as any[];

describe('disable with a reason', () => {
  it('records the note, when, and until; enable clears them', async () => {
    const t = await create();
    const until = new Date(now + 60_000).toISOString();
    const res = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, { note: 'migrating', until });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'inactive',
      pausedNote: 'migrating',
      pausedAt: new Date(now).toISOString(),
      pausedUntil: until,
    });
    const enabled = await call(app, 'POST', `/api/v1/timers/${t.id}/enable`);
    expect(enabled.body).toMatchObject({
      status: 'active',
      pausedNote: null,
      pausedAt: null,
      pausedUntil: null,
    });
  });

  it('stops a completed timer that still owes runs (its final run settled first), and leaves one that owes none completed', async () => {
    const owing = await create();
    const done = await create();
    await stores.database.pool.query("UPDATE timers SET status = 'completed' WHERE id IN (?, ?)", [
      owing.id,
      done.id,
    ]);
    // One still owes a run (pending, due a minute ago); the other owes none.
    await stores.database.pool.query('DELETE FROM tasks WHERE timer_id IN (?, ?)', [owing.id, done.id]);
    await new TaskRepository(stores.database.db, stores.database.pool).insertRuns([
      { timerId: owing.id, app: owing.app, runAt: now - 60_000, version: 1 },
    ]);
    const stopped = await call(app, 'POST', `/api/v1/timers/${owing.id}/disable`);
    expect(stopped.body).toMatchObject({ status: 'inactive' });
    const untouched = await call(app, 'POST', `/api/v1/timers/${done.id}/disable`);
    expect(untouched.body).toMatchObject({ status: 'completed' });
  });

  it('records its backlog skipped: runs due before it and never called end in a state', async () => {
    const t = await create();
    // Overload left three of its runs waiting in the queue, uncalled.
    for (const ago of [3000, 2000, 1000])
      await recordRun(stores.database, { timerId: t.id, app: t.app, runAt: now - ago, status: 'pending' });
    await call(app, 'POST', `/api/v1/timers/${t.id}/disable`);
    const runs = (await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?to=${now}`)).body.items;
    expect(runs).toHaveLength(3);
    expect(
      runs.every((r: any) => r.status === 'skipped' && r.error === 'skipped: the timer was disabled'),
    ).toBe(true);
  });

  it('accepts no body, and refuses an until in the past, unknown fields and bad JSON', async () => {
    const t = await create();
    const bare = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`);
    expect(bare.body).toMatchObject({ status: 'inactive', pausedNote: null, pausedUntil: null });
    const past = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, {
      until: new Date(now - 1).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toContain('until');
    expect((await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, { reason: 'x' })).status).toBe(400);
    const bad = await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, '{"note":');
    expect(bad.body.error.code).toBe('INVALID_JSON');
  });
});

describe('the pause sweep', () => {
  it('resumes a timer once its until has come, once however many sweeps run, as system', async () => {
    const t = await create({ cron: '* * * * * *' });
    await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, {
      note: 'back in a minute',
      until: new Date(now + 60_000).toISOString(),
    });
    expect(await core.timers.lifecycle.resumeEnded(now + 59_999)).toBe(0);
    now += 60_000;
    const swept = await Promise.all([1, 2, 3].map(() => core.timers.lifecycle.resumeEnded(now)));
    expect(swept.reduce((a, b) => a + b, 0)).toBe(1);
    const after = (await call(app, 'GET', `/api/v1/timers/${t.id}`)).body;
    expect(after).toMatchObject({ status: 'active', pausedNote: null, pausedUntil: null });
    const enables = (await auditOf(t.id)).filter((e) => e.action === 'enable');
    expect(enables.map((e) => e.actor)).toEqual(['system']);
    // Its runs are planned again.
    const upcoming = await call(app, 'GET', `/api/v1/timers/${t.id}/tasks?upcoming=true`);
    expect(upcoming.body.items.length).toBeGreaterThan(0);
  });

  it('leaves a timer enabled by hand before its until alone', async () => {
    const t = await create();
    await call(app, 'POST', `/api/v1/timers/${t.id}/disable`, { until: new Date(now + 1000).toISOString() });
    await call(app, 'POST', `/api/v1/timers/${t.id}/enable`);
    await call(app, 'POST', `/api/v1/timers/${t.id}/disable`);
    now += 2000;
    expect(await core.timers.lifecycle.resumeEnded(now)).toBe(0);
    expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body.status).toBe('inactive');
  });
});

describe('autoPause', () => {
  it('is shown on the timer and disables it once the streak reaches N, with the note, as system', async () => {
    const t = await create({ autoPause: { afterConsecutiveFailures: 3 } });
    expect(t.autoPause).toEqual({ afterConsecutiveFailures: 3 });
    const timers = new TimerRepository(stores.database.db);
    expect(await timers.countFailure(t.id, true)).toBe(1);
    expect(await timers.countFailure(t.id, true)).toBe(2);
    expect(await core.timers.lifecycle.autoPause(t.id)).toBeNull();
    expect(await timers.countFailure(t.id, false)).toBe(0);
    for (let i = 1; i <= 3; i++) expect(await timers.countFailure(t.id, true)).toBe(i);
    const [first, second] = await Promise.all([
      core.timers.lifecycle.autoPause(t.id),
      core.timers.lifecycle.autoPause(t.id),
    ]);
    expect([first, second].filter((x) => x !== null)).toHaveLength(1);
    const after = (await call(app, 'GET', `/api/v1/timers/${t.id}`)).body;
    expect(after).toMatchObject({
      status: 'inactive',
      pausedNote: 'auto-paused after 3 consecutive failures',
    });
    expect((await auditOf(t.id)).filter((e) => e.action === 'disable').map((e) => e.actor)).toEqual([
      'system',
    ]);
  });
});

describe('app pause and resume', () => {
  it('acts on all of an app’s timers at once, with one note', async () => {
    const a = await create({ app: 'pausing' });
    const b = await create({ app: 'pausing' });
    const other = await create({ app: 'other' });
    const paused = await call(app, 'POST', '/api/v1/apps/pausing/pause', { note: 'freeze' });
    expect(paused.body).toEqual({ app: 'pausing', changed: 2 });
    for (const t of [a, b]) {
      expect((await call(app, 'GET', `/api/v1/timers/${t.id}`)).body).toMatchObject({
        status: 'inactive',
        pausedNote: 'freeze',
      });
    }
    expect((await call(app, 'GET', `/api/v1/timers/${other.id}`)).body.status).toBe('active');
    const resumed = await call(app, 'POST', '/api/v1/apps/pausing/resume');
    expect(resumed.body).toEqual({ app: 'pausing', changed: 2 });
  });
});
