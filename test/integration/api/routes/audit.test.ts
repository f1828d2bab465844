import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { ADMIN } from '../../../../src/services/timers/access.js';
import { call, createTestApp, timerBody } from '../../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../../helpers/stores.js';

/**
 * The audit log: every change — create, update, enable, disable, delete, trigger,
 * retry, app creation and key and secret rotation — is recorded with its actor (admin,
 * open, or the app key's id), its time, and the changed fields before and after,
 * credentials masked; GET /api/v1/audit reads it, an app key only its own app's; a
 * refused request records nothing; a batch of changes shares its batch id.
 */

const ADMIN_TOKEN = 'admin-token-for-the-audit-tests-0123456789';
const AS_ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let secured: TestStores;
let securedCore: Core;
let app: App;
let openStores: TestStores;
let open: App;
let alpha: { apiKey: string; keyId: string };

beforeAll(async () => {
  secured = await createTestStores('audit', {
    XTIMER_ADMIN_TOKEN: ADMIN_TOKEN,
    XTIMER_SECRET_KEY: 'secret-key-for-the-audit-tests-0123456789',
  });
  securedCore = createTestCore(secured);
  app = createTestApp(securedCore);
  openStores = await createTestStores('auditopen');
  open = createTestApp(createTestCore(openStores));
  alpha = (await call(app, 'POST', '/api/v1/apps', { app: 'alpha' }, AS_ADMIN)).body;
  await call(app, 'POST', '/api/v1/apps', { app: 'beta' }, AS_ADMIN);
});
afterAll(async () => {
  await secured.cleanup();
  await openStores.cleanup();
});

async function audit(query: string, headers = AS_ADMIN): Promise<any[]> {
  const res = await call(app, 'GET', `/api/v1/audit?${query}`, undefined, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items;
}

async function auditRows(db: TestStores): Promise<number> {
  const [rows] = await db.database.pool.query('SELECT COUNT(*) AS n FROM audit_log');
  return Number((rows as Array<{ n: number }>)[0]!.n);
}

describe('what is recorded', () => {
  it('records each change of a timer with its actor, action and changed fields, newest first', async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'alpha', name: 'audited' }),
      bearer(alpha.apiKey),
    );
    const id = created.body.id;
    await call(
      app,
      'PATCH',
      `/api/v1/timers/${id}`,
      { cron: '0 0 3 * * *', retry: { maxAttempts: 5 } },
      AS_ADMIN,
    );
    await call(app, 'POST', `/api/v1/timers/${id}/enable`, undefined, bearer(alpha.apiKey));
    await call(app, 'POST', `/api/v1/timers/${id}/enable`, undefined, AS_ADMIN); // already active: no change
    const run = (await call(app, 'POST', `/api/v1/timers/${id}/trigger`, undefined, AS_ADMIN)).body;
    await call(app, 'POST', `/api/v1/timers/${id}/disable`, undefined, AS_ADMIN);
    const failedAt = Date.now() - 30_000;
    await recordRun(secured.database, { timerId: id, app: 'alpha', runAt: failedAt, status: 'missed' });
    await call(
      app,
      'POST',
      `/api/v1/timers/${id}/tasks/${id}_${failedAt}/retry`,
      undefined,
      bearer(alpha.apiKey),
    );
    await call(app, 'DELETE', `/api/v1/timers/${id}`, undefined, AS_ADMIN);

    const entries = await audit(`timerId=${id}`);
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['delete', 'admin'],
      ['retry', alpha.keyId],
      ['disable', 'admin'],
      ['trigger', 'admin'],
      ['enable', alpha.keyId],
      ['update', 'admin'],
      ['create', alpha.keyId],
    ]);
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction.update).toMatchObject({
      app: 'alpha',
      timerId: id,
      batchId: null,
      before: { cron: '0 30 2 * * *', 'retry.maxAttempts': 3 },
      after: { cron: '0 0 3 * * *', 'retry.maxAttempts': 5 },
    });
    expect(Object.keys(byAction.update.after).sort()).toEqual(['cron', 'retry.maxAttempts']);
    expect(byAction.enable).toMatchObject({ before: { status: 'inactive' }, after: { status: 'active' } });
    expect(byAction.trigger).toMatchObject({ before: null, after: { taskId: run.id } });
    expect(byAction.retry).toMatchObject({
      before: { taskId: `${id}_${failedAt}`, status: 'missed', attempts: 0 },
      after: { taskId: `${id}_${failedAt}`, status: 'pending', attempts: 0 },
    });
    expect(byAction.create.before).toBeNull();
    expect(byAction.create.after).toMatchObject({
      name: 'audited',
      cron: '0 30 2 * * *',
      status: 'inactive',
      labels: {},
    });
    expect(byAction.delete).toMatchObject({ after: null, before: { name: 'audited', status: 'inactive' } });
    for (const e of entries) expect(Math.abs(Date.parse(e.at) - Date.now())).toBeLessThan(60_000);
  });

  it('keeps no credential in any form: header values off a short list, query values, secret paths, bodies', async () => {
    const SECRETS = {
      apim: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      functions: 'fn_Q2xvdWRGdW5jdGlvbktleQ',
      bearer: 't0p-s3cret',
      sig: 'sv2021sigXYZ',
      code: 'azFuncCode42',
      path: 'T0AAAAAAA/B0BBBBBBB/ZX9ab3Cd5Ef7Gh9Ij1Kl3Mn5',
      password: 'hunter2-is-my-password',
      notify: 'zzzNotifyToken',
    };
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({
        app: 'beta',
        callback: {
          url: `http://127.0.0.1:9/api/trigger?sig=${SECRETS.sig}&code=${SECRETS.code}&page=2`,
          headers: {
            Authorization: `Bearer ${SECRETS.bearer}`,
            'Ocp-Apim-Subscription-Key': SECRETS.apim,
            'X-Functions-Key': SECRETS.functions,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ user: 'svc', password: SECRETS.password }),
        },
        notify: { url: `http://127.0.0.1:9/services/${SECRETS.path}?t=${SECRETS.notify}` },
      }),
      AS_ADMIN,
    );
    const id = created.body.id;
    await call(
      app,
      'PATCH',
      `/api/v1/timers/${id}`,
      {
        callback: {
          headers: { Authorization: 'Bearer n3w', 'content-type': 'application/json' },
          body: '{}',
        },
      },
      AS_ADMIN,
    );
    const [update, create] = await audit(`timerId=${id}`);
    expect(create.after['callback.headers']).toEqual({
      Authorization: '***',
      'Ocp-Apim-Subscription-Key': '***',
      'X-Functions-Key': '***',
      'content-type': 'application/json',
    });
    expect(create.after['callback.url']).toBe('http://127.0.0.1:9/api/trigger?sig=***&code=***&page=***');
    expect(create.after.notify.url).toBe('http://127.0.0.1:9/***?t=***');
    expect(create.after['callback.body']).toEqual({
      bytes: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // A change still shows as one, masked on both sides.
    expect(Object.keys(update.before).sort()).toEqual(['callback.body', 'callback.headers']);
    expect(update.after['callback.body']).toEqual({ bytes: 2, sha256: expect.any(String) });
    expect(update.before['callback.body'].sha256).not.toBe(update.after['callback.body'].sha256);
    const [rows] = await secured.database.pool.query('SELECT before_json, after_json FROM audit_log');
    const stored = JSON.stringify(rows);
    for (const secret of [...Object.values(SECRETS), 'n3w', 'ZX9ab3Cd5Ef7Gh9Ij1Kl3Mn5', 'hunter2'])
      expect(stored).not.toContain(secret);
  });

  it('records app creation and key and secret rotations, by key id, never a key or secret', async () => {
    const created = await call(app, 'POST', '/api/v1/apps', { app: 'rotor' }, AS_ADMIN);
    const firstKeyId = created.body.keyId;
    const rotated = await call(
      app,
      'POST',
      '/api/v1/apps/rotor/rotate',
      { rotate: 'key', graceSeconds: 60 },
      bearer(created.body.apiKey),
    );
    expect(rotated.body.keyId).not.toBe(firstKeyId);
    await call(app, 'POST', '/api/v1/apps/rotor/rotate', { rotate: 'secret', graceSeconds: 0 }, AS_ADMIN);
    const patched = await call(
      app,
      'PATCH',
      '/api/v1/apps/rotor',
      { notify: { url: 'http://127.0.0.1:9/alerts?token=hush', on: ['failed'] } },
      AS_ADMIN,
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const entries = await audit('app=rotor');
    expect(entries.map((e) => [e.action, e.actor, e.timerId])).toEqual([
      ['app_update', 'admin', null],
      ['secret_rotate', 'admin', null],
      ['key_rotate', firstKeyId, null],
      ['app_create', 'admin', null],
    ]);
    expect(entries[0]).toMatchObject({
      before: { notify: null },
      after: { notify: { url: 'http://127.0.0.1:9/alerts?token=***', on: ['failed'] } },
    });
    expect(entries[1].after).toEqual({ previousSecretValidUntil: null });
    expect(entries[2]).toMatchObject({
      before: { keyId: firstKeyId },
      after: { keyId: rotated.body.keyId, previousKeyValidUntil: rotated.body.previousKeyValidUntil },
    });
    const [rows] = await secured.database.pool.query("SELECT * FROM audit_log WHERE app = 'rotor'");
    const stored = JSON.stringify(rows);
    for (const secret of [created.body.apiKey, rotated.body.apiKey, created.body.signingSecret, 'hush']) {
      expect(stored).not.toContain(secret);
    }
  });

  it("records an app's calendars written, replaced and deleted, with the dates before and after", async () => {
    const key = (await call(app, 'POST', '/api/v1/apps', { app: 'almanac' }, AS_ADMIN)).body;
    const path = '/api/v1/apps/almanac/calendars/holidays';
    expect((await call(app, 'PUT', path, { dates: ['2026-12-25'] }, bearer(key.apiKey))).status).toBe(201);
    const replaced = await call(
      app,
      'PUT',
      path,
      { dates: ['2026-12-25', '2027-01-01'], description: 'days off' },
      AS_ADMIN,
    );
    expect(replaced.status).toBe(200);
    expect((await call(app, 'DELETE', path, undefined, AS_ADMIN)).status).toBe(204);
    // A refused delete (no such calendar any more) records nothing.
    expect((await call(app, 'DELETE', path, undefined, AS_ADMIN)).status).toBe(404);
    const entries = (await audit('app=almanac')).filter((e) => e.action.startsWith('calendar_'));
    expect(
      entries.map((e) => [e.action, e.actor, e.timerId, e.before?.dates ?? null, e.after?.dates ?? null]),
    ).toEqual([
      ['calendar_delete', 'admin', null, ['2026-12-25', '2027-01-01'], null],
      ['calendar_put', 'admin', null, ['2026-12-25'], ['2026-12-25', '2027-01-01']],
      ['calendar_put', key.keyId, null, null, ['2026-12-25']],
    ]);
    expect(entries[1].after).toMatchObject({ name: 'holidays', description: 'days off' });
  });

  it('says how many runs with a call behind them a schedule change left alone', async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'alpha', name: 'in-flight-kept', status: 'active' }),
      AS_ADMIN,
    );
    const id = created.body.id;
    // One run in a call, one backing off before its retry.
    for (const ago of [5000, 3000])
      await recordRun(secured.database, {
        timerId: id,
        app: 'alpha',
        runAt: Date.now() - ago,
        status: 'running',
      });
    await call(app, 'PATCH', `/api/v1/timers/${id}`, { cron: '0 0 4 * * *' }, AS_ADMIN);
    await call(app, 'PATCH', `/api/v1/timers/${id}`, { description: 'no schedule change' }, AS_ADMIN);
    const [described, replanned] = await audit(`timerId=${id}&action=update`);
    expect(replanned.after).toMatchObject({ cron: '0 0 4 * * *', inFlightRunsLeftAlone: 2 });
    expect(described.after).not.toHaveProperty('inFlightRunsLeftAlone');
  });

  it('records nothing for a refused change', async () => {
    const id = (await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'beta' }), AS_ADMIN)).body.id;
    const before = await auditRows(secured);
    const refused: Array<[string, string, unknown, Record<string, string>]> = [
      ['PATCH', `/api/v1/timers/${id}`, { cron: '0 61 * * * *' }, AS_ADMIN],
      ['PATCH', `/api/v1/timers/${id}`, { callback: { url: 'http://169.254.169.254/' } }, AS_ADMIN],
      ['POST', `/api/v1/timers/${id}/enable`, undefined, bearer(alpha.apiKey)],
      ['DELETE', `/api/v1/timers/${id}`, undefined, bearer(alpha.apiKey)],
      ['POST', `/api/v1/timers/${id}/tasks/${id}_1/retry`, undefined, AS_ADMIN],
      ['POST', '/api/v1/timers', timerBody({ app: 'beta', labels: { 'no spaces': 'x' } }), AS_ADMIN],
      ['POST', '/api/v1/apps/beta/rotate', { rotate: 'key' }, bearer(alpha.apiKey)],
    ];
    for (const [method, path, body, headers] of refused) {
      const res = await call(app, method, path, body, headers);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    }
    expect(await auditRows(secured)).toBe(before);
  });

  it('names the open actor when no admin token is configured', async () => {
    const t = await call(open, 'POST', '/api/v1/timers', timerBody({ app: 'loose' }));
    const entries = (await call(open, 'GET', `/api/v1/audit?timerId=${t.body.id}`)).body.items;
    expect(entries.map((e: any) => [e.action, e.actor])).toEqual([['create', 'open']]);
  });

  it('ties the entries of a batch together with its batch id', async () => {
    const batch = securedCore.timers.as(ADMIN, { batchId: 'apply-42' });
    const id = (
      await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'beta', name: 'batched' }), AS_ADMIN)
    ).body.id;
    await batch.definitions.update(id, { description: 'applied' });
    await batch.lifecycle.enable(id);
    const entries = await audit('batchId=apply-42');
    expect(entries.map((e) => [e.action, e.batchId, e.timerId])).toEqual([
      ['enable', 'apply-42', id],
      ['update', 'apply-42', id],
    ]);
  });
});

describe('GET /api/v1/audit', () => {
  it("lets an app key read only its own app's entries", async () => {
    const own = await audit('', bearer(alpha.apiKey));
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((e) => e.app))).toEqual(new Set(['alpha']));
    const other = await call(app, 'GET', '/api/v1/audit?app=beta', undefined, bearer(alpha.apiKey));
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    const betaTimer = (await audit('app=beta'))[0].timerId;
    expect(await audit(`timerId=${betaTimer}`, bearer(alpha.apiKey))).toEqual([]);
    expect((await call(app, 'GET', '/api/v1/audit')).status).toBe(401);
  });

  it('pages newest first with a cursor, and refuses a bad query', async () => {
    const all = await audit('limit=500');
    const first = await call(app, 'GET', '/api/v1/audit?limit=2', undefined, AS_ADMIN);
    expect(first.body.items.map((e: any) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    const second = await call(
      app,
      'GET',
      `/api/v1/audit?limit=2&cursor=${first.body.nextCursor}`,
      undefined,
      AS_ADMIN,
    );
    expect(second.body.items.map((e: any) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    for (const q of ['timerId=abc', 'limit=0', 'cursor=nope', 'app=bad%20app', 'batchId=']) {
      expect((await call(app, 'GET', `/api/v1/audit?${q}`, undefined, AS_ADMIN)).status, q).toBe(400);
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await call(app, 'GET', '/openapi.json')).body;
    expect(doc.paths['/api/v1/audit'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.schemas.AuditEntry).toBeDefined();
  });
});
