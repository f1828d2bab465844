import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { createPool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../../../api/app.js';
import type { Core } from '../../../../src/core.js';
import { Liveness } from '../../../../src/observability/liveness.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { readinessChecks } from '../../../../src/observability/readiness.js';
import { call, createTestApp } from '../../../helpers/api.js';
import { freePort } from '../../../helpers/processes.js';
import { createTestCore, createTestStores, eventually, type TestStores } from '../../../helpers/stores.js';

/** Liveness over the process's threads, and readiness over Redis and MySQL taking writes. */

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

function appWithChecks(readiness: Record<string, () => Promise<void>>, liveness?: Liveness): App {
  return createApp({
    liveness,
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

  it('answers 503 naming the thread once one has been silent for longer than it may be', async () => {
    let now = 0;
    const liveness = new Liveness(() => now);
    liveness.watch('roles', 60_000);
    const app = appWithChecks({}, liveness);
    now = 59_000;
    expect(await call(app, 'GET', '/healthz')).toMatchObject({
      status: 200,
      body: { checks: { roles: 'ok' } },
    });
    now = 61_000;
    const res = await call(app, 'GET', '/healthz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'stalled', checks: { roles: 'thread silent for 61 s' } });
    liveness.beat('roles');
    expect((await call(app, 'GET', '/healthz')).status).toBe(200);
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

  it('answers 503 while MySQL refuses this user writes (read_only: a replica, or a primary a failover demoted)', async () => {
    // A user without the privilege to write through read_only, as xtimer's usually is.
    // The server is shared: read_only holds back no other test, which all connect as root.
    const root = core.database.pool;
    const user = `xt_ro_${process.pid}`;
    const url = new URL(stores.config.mysqlUrl);
    const database = url.pathname.slice(1);
    await root.query(`CREATE USER IF NOT EXISTS '${user}'@'%'`);
    await root.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON \`${database}\`.* TO '${user}'@'%'`);
    url.username = user;
    url.password = '';
    const pool = createPool({ uri: url.toString(), connectionLimit: 1 });
    const unprivileged = appWithChecks(readinessChecks(core.redis, pool, core.keys.readinessProbe()));
    try {
      expect((await call(unprivileged, 'GET', '/readyz')).status).toBe(200);
      await root.query('SET GLOBAL read_only = ON');
      try {
        const res = await call(unprivileged, 'GET', '/readyz');
        expect(res.status).toBe(503);
        expect(res.body.checks).toEqual({ redis: 'ok', mysql: expect.stringMatching(/^down: .*read-only/) });
        // Root may write through it, and is ready.
        expect((await call(app, 'GET', '/readyz')).status).toBe(200);
      } finally {
        await root.query('SET GLOBAL read_only = OFF');
      }
      expect((await call(unprivileged, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await pool.end();
      await root.query(`DROP USER IF EXISTS '${user}'@'%'`);
    }
  });

  describe('a Redis that answers PING but takes no write', () => {
    let server: ChildProcess;
    let redis: Redis;
    let ready: App;

    beforeAll(async () => {
      const port = await freePort();
      server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      server.once('error', () => undefined);
      redis = new Redis({ port, maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      await eventually(() => redis.ping(), 'redis-server to start (apt-get install -y redis-server)');
      ready = appWithChecks(readinessChecks(redis, core.database.pool, 'readyz'));
    });
    afterAll(async () => {
      redis.disconnect();
      server.kill('SIGKILL');
    });

    it('is unready while the Redis is out of memory', async () => {
      expect((await call(ready, 'GET', '/readyz')).status).toBe(200);
      await redis.config('SET', 'maxmemory-policy', 'noeviction');
      await redis.config('SET', 'maxmemory', '1');
      try {
        const res = await call(ready, 'GET', '/readyz');
        expect(res.status).toBe(503);
        expect(res.body.checks.redis).toMatch(/^down: OOM/);
      } finally {
        await redis.config('SET', 'maxmemory', '0');
      }
    });

    it('is unready while the Redis is a replica (READONLY), as a master a failover demoted is', async () => {
      const nowhere = await freePort();
      await redis.replicaof('127.0.0.1', nowhere);
      try {
        const res = await call(ready, 'GET', '/readyz');
        expect(res.status).toBe(503);
        expect(res.body.checks.redis).toMatch(/^down: READONLY/);
      } finally {
        await redis.replicaof('NO', 'ONE');
      }
      expect((await call(ready, 'GET', '/readyz')).status).toBe(200);
    });
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
