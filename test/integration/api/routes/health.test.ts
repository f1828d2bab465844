import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { call, createTestApp } from '../../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../../helpers/stores.js';

/** Liveness, and readiness over Redis and MySQL. */

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('health');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await stores.cleanup();
});

function appWithChecks(readiness: Record<string, () => Promise<void>>): App {
  return createApp({
    timers: core.timers,
    apps: core.apps,
    audit: core.audit,
    servicePause: core.servicePause,
    callbackTimeoutMs: core.config.callbackTimeoutMs,
    logger: createLogger('silent'),
    readiness,
  });
}

describe('GET /healthz', () => {
  it('answers 200 while the process runs', async () => {
    const res = await call(app, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers 200 even when a dependency is down (liveness is not readiness)', async () => {
    const broken = appWithChecks({ mysql: () => Promise.reject(new Error('connection refused')) });
    expect((await call(broken, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('GET /readyz', () => {
  it('answers 200 with redis and mysql ok when both answer', async () => {
    const res = await call(app, 'GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok', mysql: 'ok' } });
  });

  it('answers 503 naming the failing dependency and why', async () => {
    const broken = appWithChecks({
      redis: async () => {
        await core.redis.ping();
      },
      mysql: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:3306')),
    });
    const res = await call(broken, 'GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unready');
    expect(res.body.checks.redis).toBe('ok');
    expect(res.body.checks.mysql).toMatch(/^down: .*ECONNREFUSED/);
  });

  it('answers 503 when a check does not answer in time', async () => {
    const hung = appWithChecks({ redis: () => new Promise<void>(() => undefined) });
    const started = Date.now();
    const res = await call(hung, 'GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.redis).toMatch(/^down: no answer within/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
