import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { PauseWatch } from '../../../../src/services/apps/service-pause.js';
import { call, createTestApp } from '../../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * The emergency brake's state: kept in MySQL, copied to Redis for the executors, written
 * back to Redis from MySQL when Redis lost it, and audited; and its API, the admin's.
 */
let stores: TestStores;
let core: Core;

beforeAll(async () => {
  stores = await createTestStores('servicepause');
  core = createTestCore(stores);
});
afterAll(async () => {
  await stores.cleanup();
});

describe('the pause of the whole service', () => {
  it('reaches what executors watch, survives Redis losing it, and ends with a resume', async () => {
    const watch = new PauseWatch(stores.redis, core.keys.servicePause());
    await watch.look();
    expect(watch.current()).toBeNull();

    const state = await core.servicePause.pause('incident 42', { actor: 'admin' });
    expect(state).toMatchObject({ note: 'incident 42', pausedBy: 'admin' });
    await watch.look();
    expect(watch.current()).toMatchObject({ note: 'incident 42' });

    await stores.redis.del(core.keys.servicePause());
    await core.servicePause.sync();
    await watch.look();
    expect(watch.current()).toMatchObject({ note: 'incident 42' });

    // A new note keeps when the pause began.
    expect(await core.servicePause.pause('still on it', { actor: 'admin' })).toMatchObject({
      note: 'still on it',
      pausedAt: state.pausedAt,
    });
    expect(await core.servicePause.resume({ actor: 'admin' })).toMatchObject({ note: 'still on it' });
    await watch.look();
    expect(watch.current()).toBeNull();
    expect(await core.servicePause.get()).toBeNull();

    const [rows] = await stores.database.pool.query(
      "SELECT action, app FROM audit_log WHERE action IN ('pause_all', 'resume_all') ORDER BY id",
    );
    expect(rows).toEqual([
      { action: 'pause_all', app: '*' },
      { action: 'pause_all', app: '*' },
      { action: 'resume_all', app: '*' },
    ]);
  });
});

describe('POST /api/v1/pause and /resume, GET /api/v1/pause', () => {
  // Open mode: a request without a token acts as the admin (`open`); a token sent is checked.
  let app: App;
  let appKey: Record<string, string>;

  beforeAll(async () => {
    app = createTestApp(core);
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'brakes' });
    appKey = { authorization: `Bearer ${created.body.apiKey}` };
  });

  it('pauses everything with a note, shows it, keeps when it began, and resumes once', async () => {
    expect((await call(app, 'GET', '/api/v1/pause')).body).toEqual({ paused: false });
    const before = Date.now();
    const paused = await call(app, 'POST', '/api/v1/pause', { note: '  INC-7: receivers down  ' });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({
      paused: true,
      note: 'INC-7: receivers down',
      pausedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pausedBy: 'open',
    });
    expect(Date.parse(paused.body.pausedAt)).toBeGreaterThanOrEqual(before - 1);
    expect((await call(app, 'GET', '/api/v1/pause')).body).toEqual(paused.body);
    const watch = new PauseWatch(stores.redis, core.keys.servicePause());
    await watch.look();
    expect(watch.current()).toMatchObject({ note: 'INC-7: receivers down' });

    const renoted = await call(app, 'POST', '/api/v1/pause', { note: 'INC-7: still down' });
    expect(renoted.body).toEqual({ ...paused.body, note: 'INC-7: still down' });

    const resumed = await call(app, 'POST', '/api/v1/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({
      paused: false,
      ended: { note: 'INC-7: still down', pausedAt: paused.body.pausedAt, pausedBy: 'open' },
    });
    expect((await call(app, 'POST', '/api/v1/resume')).body).toEqual({ paused: false, ended: null });
    expect((await call(app, 'GET', '/api/v1/pause')).body).toEqual({ paused: false });
    await watch.look();
    expect(watch.current()).toBeNull();

    const audit = (await call(app, 'GET', '/api/v1/audit?limit=3')).body.items;
    expect(
      audit.map((e: any) => [e.action, e.app, e.actor, e.before?.note ?? null, e.after?.note ?? null]),
    ).toEqual([
      ['resume_all', '*', 'open', 'INC-7: still down', null],
      ['pause_all', '*', 'open', 'INC-7: receivers down', 'INC-7: still down'],
      ['pause_all', '*', 'open', null, 'INC-7: receivers down'],
    ]);
  });

  it('refuses a missing, empty, overlong or multi-line note with the error envelope, pausing nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'required: say why'],
      [{ note: '' }, 'must not be empty'],
      [{ note: '   ' }, 'must not be empty'],
      [{ note: 'x'.repeat(1025) }, 'at most 1024 characters'],
      [{ note: 'two\nlines' }, 'one line'],
      [{ note: 42 }, 'must be a string'],
      [{ note: 'ok', until: '2030-01-01T00:00:00Z' }, 'until'],
    ];
    for (const [body, message] of cases) {
      const res = await call(app, 'POST', '/api/v1/pause', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(JSON.stringify(res.body.error.details), JSON.stringify(body)).toContain(message);
      expect(res.body.error.details[0]).toEqual({ path: expect.any(String), message: expect.any(String) });
    }
    expect((await call(app, 'POST', '/api/v1/pause', '{"note":')).body.error.code).toBe('INVALID_JSON');
    expect((await call(app, 'POST', '/api/v1/pause', { note: 'x'.repeat(1024) })).status).toBe(200);
    expect((await call(app, 'POST', '/api/v1/resume')).status).toBe(200);
    expect(await core.servicePause.get()).toBeNull();
  });

  it("is the admin's alone: an app key gets 403 and changes nothing", async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/pause', undefined],
      ['POST', '/api/v1/pause', { note: 'by an app' }],
      ['POST', '/api/v1/resume', undefined],
    ] as const) {
      const res = await call(app, method, path, body, appKey);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(await core.servicePause.get()).toBeNull();
  });

  it('is documented in /openapi.json with its body, answers and examples', async () => {
    const doc = (await call(app, 'GET', '/openapi.json')).body;
    const pause = doc.paths['/api/v1/pause'];
    expect(Object.keys(pause.post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    expect(pause.post.security).toEqual([{ bearerAuth: [] }]);
    expect(pause.get.responses['200']).toBeDefined();
    expect(doc.paths['/api/v1/resume'].post.responses['200']).toBeDefined();
    const schemas = doc.components.schemas;
    expect(schemas.PauseAll.required).toEqual(['note']);
    expect(schemas.PauseAll.properties.note).toMatchObject({
      minLength: 1,
      maxLength: 1024,
      example: expect.any(String),
    });
    expect(schemas.ServicePaused.required).toEqual(
      expect.arrayContaining(['paused', 'note', 'pausedAt', 'pausedBy']),
    );
    expect(schemas.ServiceResumed.properties.ended).toBeDefined();
    expect(schemas.AuditEntry.properties.action.enum).toEqual(
      expect.arrayContaining(['pause_all', 'resume_all']),
    );
  });
});
