import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { evaluationTally } from '../../../src/domain/evaluation-budget.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * A cron quiet for years and then firing every second (`* * * * * * 2030` in New York)
 * once froze the process: a preview built ~27 million instants before it counted them. Each
 * path an app key can reach now answers after building a handful, as fast as for an
 * ordinary cron.
 */

const ZONE = 'America/New_York';
const COSTLY = '* * * * * * 2030';
const ORDINARY = '0 0 12 * * *';
/** Far from the year it wakes up in: the search must skip three years to find it. */
const NOW = Date.UTC(2026, 10, 26, 8, 0, 0);

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('costly');
  app = createTestApp(createTestCore(stores, () => NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

/** A request's answer, how much schedule evaluation it cost, and how long it took. */
async function measured(send: () => Promise<{ status: number; body: any }>) {
  const before = evaluationTally.instants + evaluationTally.days;
  const started = performance.now();
  const res = await send();
  return {
    res,
    ms: performance.now() - started,
    work: evaluationTally.instants + evaluationTally.days - before,
  };
}

/**
 * The primary check is the work done; the clock is second: the costly cron may take no
 * more than 50 ms beyond the same request with an ordinary cron (the best of three each,
 * so a busy machine does not decide).
 */
async function expectCheap(
  label: string,
  request: (cron: string, attempt: number) => Promise<{ status: number; body: any }>,
  status: number,
) {
  const best = { costly: Number.POSITIVE_INFINITY, ordinary: Number.POSITIVE_INFINITY };
  for (let attempt = 0; attempt < 3; attempt++) {
    for (const kind of ['costly', 'ordinary'] as const) {
      const { res, ms, work } = await measured(() => request(kind === 'costly' ? COSTLY : ORDINARY, attempt));
      expect(res.status, `${label} (${kind}): ${JSON.stringify(res.body)}`).toBe(status);
      expect(work, `${label} (${kind}) instants and days`).toBeLessThan(1000);
      best[kind] = Math.min(best[kind], ms);
    }
  }
  expect(
    best.costly,
    `${label}: best ${best.costly.toFixed(1)} ms against ${best.ordinary.toFixed(1)} ms`,
  ).toBeLessThan(best.ordinary + 50);
}

const query = (cron: string) => `cron=${encodeURIComponent(cron)}&timezone=${encodeURIComponent(ZONE)}`;

describe(`${COSTLY} in ${ZONE}`, () => {
  it('previews its first run, in 2030, as cheaply as an ordinary cron', async () => {
    const first = await call(app, 'GET', `/api/v1/preview?${query(COSTLY)}&count=1`);
    expect(first.body.items).toEqual(['2030-01-01T00:00:00.000-05:00']);
    await expectCheap(
      'GET /preview',
      (cron) => call(app, 'GET', `/api/v1/preview?${query(cron)}&count=1`),
      200,
    );
  });

  it('is created, previewed, disabled and enabled as cheaply as an ordinary cron', async () => {
    const ids = new Map<string, number[]>();
    await expectCheap(
      'POST /timers',
      async (cron, attempt) => {
        const res = await call(
          app,
          'POST',
          '/api/v1/timers',
          timerBody({ name: `create-${cron.length}-${attempt}`, cron, timezone: ZONE }),
        );
        if (res.status === 201) ids.set(cron, [...(ids.get(cron) ?? []), res.body.id]);
        return res;
      },
      201,
    );
    const idOf = (cron: string, attempt: number) => ids.get(cron)![attempt]!;
    await expectCheap(
      'GET /timers/{id}/preview',
      (cron, attempt) => call(app, 'GET', `/api/v1/timers/${idOf(cron, attempt)}/preview?count=1`),
      200,
    );
    for (const [, list] of ids) {
      for (const id of list)
        expect((await call(app, 'POST', `/api/v1/timers/${id}/disable`)).status).toBe(200);
    }
    await expectCheap(
      'POST /timers/{id}/enable',
      (cron, attempt) => call(app, 'POST', `/api/v1/timers/${idOf(cron, attempt)}/enable`),
      200,
    );
    const preview = await call(app, 'GET', `/api/v1/timers/${idOf(COSTLY, 0)}/preview?count=2`);
    expect(preview.body.items).toEqual(['2030-01-01T00:00:00.000-05:00', '2030-01-01T00:00:01.000-05:00']);
  });

  it('fails a dry-run apply of three such timers on their callback at once, not after their schedules', async () => {
    const blocked = (cron: string, i: number) => {
      const { app: _, callback, ...timer } = timerBody({ name: `apply-${i}`, cron, timezone: ZONE });
      return {
        ...timer,
        callback: { ...(callback as object), url: 'http://169.254.169.254/latest/meta-data' },
      };
    };
    await expectCheap(
      'POST /apps/{app}/apply (dry run)',
      async (cron) => {
        const res = await call(app, 'POST', '/api/v1/apps/billing/apply', {
          timers: [0, 1, 2].map((i) => blocked(cron, i)),
          dryRun: true,
        });
        if (res.status === 400) expect(res.body.error.code).toBe('TARGET_BLOCKED');
        return res;
      },
      400,
    );
  });

  it('shows its next run on the console as cheaply as an ordinary cron', async () => {
    await expectCheap(
      'GET /dashboard/timers',
      async (cron) => {
        const res = await app.request(`/dashboard/timers?q=create-${cron.length}-`);
        return { status: res.status, body: await res.text() };
      },
      200,
    );
    const page = await (await app.request(`/dashboard/timers?q=create-${COSTLY.length}-0`)).text();
    expect(page).toContain('2030-01-01 00:00:00');
  });
});
