import { mkdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallText } from '../../../dashboard/wall-time.js';
import { recordRun } from '../../helpers/stores.js';
import { type ConsoleInBrowser, startConsole } from './console-in-browser.js';

/**
 * The console's main pages in light and dark, each screenshot taken whole: every page
 * answers, fits 1,280 px without sideways scrolling, and follows the system's scheme. The
 * pictures go to test-results/console/screens/; with UPDATE_DOC_SCREENSHOTS=1 to
 * docs/images/console/ instead, where the console's description shows them.
 */
const OUT = fileURLToPath(
  new URL(
    process.env.UPDATE_DOC_SCREENSHOTS === '1'
      ? '../../../docs/images/console/'
      : '../../../test-results/console/screens/',
    import.meta.url,
  ),
);

/** A run that failed three times: a timeout, then two 503s, each answer kept. */
function failedAnswers(runAt: number) {
  const headers = { 'content-type': 'application/json', 'retry-after': '30', 'set-cookie': '***' };
  return {
    error: 'HTTP 503',
    httpStatus: 503,
    answers: {
      attempt: 3,
      headers,
      bodyBytes: 39,
      earlier: [
        {
          attempt: 1,
          sentAt: runAt + 1,
          httpStatus: null,
          output: null,
          bodyBytes: null,
          durationMs: 5000,
          error: 'timeout after 5000 ms',
          headers: null,
        },
        {
          attempt: 2,
          sentAt: runAt + 2,
          httpStatus: 503,
          output: '{"error":"invoice service unavailable"}',
          bodyBytes: 39,
          durationMs: 31,
          error: 'HTTP 503',
          headers,
        },
      ],
    },
  };
}

let c: ConsoleInBrowser;
const paths: Record<string, string> = {};

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  c = await startConsole('console-screens');
  const make = async (name: string, extra: Record<string, unknown>) => {
    const res = await c.api('POST', '/api/v1/timers', {
      app: 'billing',
      name,
      status: 'active',
      timezone: 'Europe/Berlin',
      callback: {
        url: 'http://127.0.0.1:9/hooks/invoice',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk_live_example' },
        body: '{"run":"nightly"}',
      },
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: number; app: string };
  };
  const nightly = await make('nightly-invoice', { cron: '0 30 2 * * *', labels: { team: 'payments' } });
  const reminders = await make('reminders', { every: '15m', labels: { team: 'growth' } });
  await make('quarter-close', { at: new Date(Date.now() + 86_400_000).toISOString() });
  // A history to show: successes a minute apart, and a failure with the receiver's answer.
  const now = Date.now();
  for (let i = 1; i <= 20; i++) {
    await recordRun(c.stores.database, {
      timerId: nightly.id,
      app: nightly.app,
      runAt: now - i * 60_000,
      status: i === 3 ? 'failed' : 'succeeded',
      attempts: i === 3 ? 3 : 1,
      output: i === 3 ? '{"error":"invoice service unavailable"}' : 'ok',
      ...(i === 3 ? failedAnswers(now - i * 60_000) : {}),
      durationMs: 20 + i,
      firstLateMs: i % 4,
    });
  }
  const failed = `${nightly.id}_${now - 3 * 60_000}`;
  const from = now - 3_600_000;
  paths.timers = '/dashboard/timers';
  paths.timer = `/dashboard/timers/${nightly.id}`;
  paths.form = `/dashboard/timers/${nightly.id}/edit`;
  paths.run = `/dashboard/timers/${nightly.id}/runs/${failed}`;
  const range = new URLSearchParams({
    from: wallText(from, 'Europe/Berlin'),
    to: wallText(now - 60_000, 'Europe/Berlin'),
  });
  paths.backfill = `/dashboard/timers/${reminders.id}/backfills?${range}`;
  paths['failed-runs'] = '/dashboard/runs?status=failed';
}, 60_000);
afterAll(async () => {
  await c?.stop();
});

async function pageIn(scheme: 'light' | 'dark'): Promise<Page> {
  const context = await c.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
  return context.newPage();
}

describe('the main pages in light and dark', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`shows each whole in ${scheme}, fitting the screen`, { timeout: 60_000 }, async () => {
      const page = await pageIn(scheme);
      for (const [name, path] of Object.entries(paths)) {
        const res = await page.goto(`${c.base}${path}`);
        expect(res?.status(), path).toBe(200);
        expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(1280);
        const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
        // Dark follows the system: a dark page's background is darker than mid-grey.
        const [r = 0, g = 0, b = 0] = (String(background).match(/\d+/g) ?? []).map(Number);
        expect((r + g + b) / 3 > 128, `${path} in ${scheme}`).toBe(scheme === 'light');
        const file = `${OUT}${name}-${scheme}.png`;
        await page.screenshot({ path: file, fullPage: true });
        expect((await stat(file)).size).toBeGreaterThan(10_000);
      }
      await page.context().close();
    });
  }
});
