import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.js';
import { PauseWatch } from '../../src/services/service-pause.js';
import { createTestCore, createTestStores, type TestStores } from '../helpers/stores.js';

/**
 * The emergency brake's state: kept in MySQL, copied to Redis for the executors, written
 * back to Redis from MySQL when Redis lost it, and audited.
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
