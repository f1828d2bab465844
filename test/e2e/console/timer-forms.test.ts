import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleInBrowser, startConsole } from './console-in-browser.js';

/**
 * The timer form in a real browser, found by its labels as a person finds it: an interval
 * timer and a one-shot made through it (the kind chooser shows only the chosen kind's
 * fields, and the preview follows it), a one-shot's time moved, and a wrong field
 * answered beside it with nothing saved. Screenshots go to test-results/console/.
 */

const SHOTS = fileURLToPath(new URL('../../../test-results/console/', import.meta.url));

let c: ConsoleInBrowser;

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  c = await startConsole('console-forms');
}, 60_000);
afterAll(async () => {
  await c?.stop();
});

async function newPage(): Promise<Page> {
  const context = await c.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function previewLines(page: Page): Promise<string[]> {
  return page.locator('#preview li').allTextContents();
}

describe('the timer form in a browser', () => {
  it('creates an interval timer, showing only its fields and previewing its runs', async () => {
    const calendar = await c.api('PUT', '/api/v1/apps/web/calendars/holidays', { dates: ['2031-12-25'] });
    expect(calendar.status).toBeLessThan(300);
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers/new`);
    await field(page, 'App').fill('web');
    await field(page, 'Name').fill('every-ninety-seconds');
    await field(page, 'Schedule').selectOption('every');
    expect(await field(page, 'Cron').isVisible()).toBe(false);
    expect(await field(page, 'At').isVisible()).toBe(false);
    await field(page, 'Every').fill('90s');
    await field(page, 'Offset').fill('15s');
    await field(page, 'Time zone').fill('Europe/Berlin');
    await field(page, 'Max runs').fill('10');
    await field(page, 'Auto-pause after').fill('3');
    // The app's calendars appear once the app is typed.
    const holidays = page.getByRole('group', { name: 'Calendars' }).getByLabel('holidays');
    await holidays.check();
    await page
      .locator(
        '#preview[data-kind="every"][data-every="90s"][data-offset="15s"][data-timezone="Europe/Berlin"]',
      )
      .waitFor();
    await expect.poll(() => page.locator('#preview li').count()).toBe(5);
    const times = (await previewLines(page)).map((t) => Date.parse(t.replace(' ', 'T').replace(' ', '')));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(90_000);
    for (const t of times) expect((t - 15_000) % 90_000).toBe(0);
    await field(page, 'Callback URL').fill('http://127.0.0.1:9/hooks/every');
    await page.screenshot({ path: `${SHOTS}new-interval-timer.png`, fullPage: true });
    await page.locator('button[data-action="save"]').click();
    await page.locator('.notice[data-done="created"]').waitFor();
    const id = Number(/\/dashboard\/timers\/(\d+)/.exec(page.url())?.[1]);
    expect((await c.api('GET', `/api/v1/timers/${id}`)).body).toMatchObject({
      cron: null,
      every: '90s',
      offset: '15s',
      maxRuns: 10,
      timezone: 'Europe/Berlin',
      autoPause: { afterConsecutiveFailures: 3 },
      skipCalendars: ['holidays'],
    });
    expect(await page.locator('dl.def').textContent()).toContain('every 90s + 15s');
    await page.context().close();
  });

  it("creates a one-shot, then moves its time on the edit form, in the timer's zone", async () => {
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers/new`);
    await field(page, 'App').fill('web');
    await field(page, 'Name').fill('once');
    await field(page, 'Schedule').selectOption('at');
    expect(await field(page, 'Every').isVisible()).toBe(false);
    expect(await field(page, 'Jitter').isVisible()).toBe(false);
    await field(page, 'Time zone').fill('Europe/Berlin');
    await field(page, 'At').fill('2031-03-04 05:06:07');
    await page.locator('#preview[data-kind="at"][data-at="2031-03-04 05:06:07"]').waitFor();
    expect(await previewLines(page)).toEqual(['2031-03-04 05:06:07 +01:00']);
    await field(page, 'Callback URL').fill('http://127.0.0.1:9/hooks/once');
    await page.locator('button[data-action="save"]').click();
    await page.locator('.notice[data-done="created"]').waitFor();
    const id = Number(/\/dashboard\/timers\/(\d+)/.exec(page.url())?.[1]);
    expect((await c.api('GET', `/api/v1/timers/${id}`)).body.at).toBe('2031-03-04T04:06:07.000Z');

    await page.locator('a[data-action="edit"]').click();
    expect(await field(page, 'Schedule').inputValue()).toBe('at');
    expect(await field(page, 'At').inputValue()).toBe('2031-03-04 05:06:07');
    await field(page, 'At').fill('2031-07-08 09:10:00');
    await page.locator('#preview[data-at="2031-07-08 09:10:00"]').waitFor();
    expect(await previewLines(page)).toEqual(['2031-07-08 09:10:00 +02:00']);
    await page.locator('button[data-action="save"]').click();
    await page.locator('.notice[data-done="updated"]').waitFor();
    expect((await c.api('GET', `/api/v1/timers/${id}`)).body.at).toBe('2031-07-08T07:10:00.000Z');
    expect(await page.locator('dl.def').textContent()).toContain('once at 2031-07-08 09:10:00 +02:00');
    await page.context().close();
  });

  it('answers a wrong field beside it, keeps what was typed, and saves nothing', async () => {
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers/new`);
    await field(page, 'App').fill('web');
    await field(page, 'Name').fill('offset-too-long');
    await field(page, 'Schedule').selectOption('every');
    await field(page, 'Every').fill('10m');
    await field(page, 'Offset').fill('10m');
    await field(page, 'Callback URL').fill('http://127.0.0.1:9/hooks/bad');
    await page.locator('button[data-action="save"]').click();
    const error = page.locator('[data-error-for="offset"]');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/shorter than every/);
    // Beside its field: in the same cell as the Offset box.
    expect(await field(page, 'Offset').locator('xpath=..').locator('[data-error-for="offset"]').count()).toBe(
      1,
    );
    expect(await page.locator('[role="alert"]').textContent()).toContain('Nothing was saved');
    expect(await field(page, 'Schedule').inputValue()).toBe('every');
    expect(await field(page, 'Every').inputValue()).toBe('10m');
    expect((await c.api('GET', '/api/v1/timers?app=web&q=offset-too-long')).body.items).toEqual([]);
    await page.context().close();
  });
});
