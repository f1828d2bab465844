import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { call, createTestApp } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * What an executor in the same process yields to while overloaded: the API's and the
 * console's requests, never a health probe or a scrape (a load balancer's checks would
 * otherwise hold the firing back).
 */

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('foreground');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await stores.cleanup();
});

async function busyAfter(path: string): Promise<boolean> {
  core.foreground.busySinceLastLook();
  await call(app, 'GET', path);
  return core.foreground.busySinceLastLook();
}

describe('the foreground of the api app', () => {
  it.each(['/healthz', '/readyz', '/openapi.json'])('leaves out %s', async (path) => {
    expect(await busyAfter(path)).toBe(false);
  });

  it.each(['/api/v1/timers', '/dashboard/timers'])('counts %s', async (path) => {
    expect(await busyAfter(path)).toBe(true);
  });
});
