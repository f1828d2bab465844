import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStatus } from '../../../src/domain/timer.js';
import { recordRun } from '../../helpers/stores.js';
import { type ConsoleInBrowser, startConsole } from './console-in-browser.js';

/**
 * How the console reads in a real browser: times say how far from now they are and keep
 * saying it as the clock moves, with the zoned time beside them; the pages go dark with
 * the system; on a 390 px phone the timers list does not scroll sideways and every timer's
 * buttons are in reach. Screenshots go to test-results/console/.
 */

const SHOTS = fileURLToPath(new URL('../../../test-results/console/', import.meta.url));

let c: ConsoleInBrowser;
let timerId: number;

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  c = await startConsole('console-looks');
  const created = await c.api('POST', '/api/v1/timers', {
    app: 'looks',
    name: 'every-minute',
    cron: '0 * * * * *',
    timezone: 'Asia/Kolkata',
    status: 'active',
    callback: { url: 'http://127.0.0.1:9/hooks/looks' },
  });
  expect(created.status).toBe(201);
  timerId = created.body.id;
  // A timer with a long name and labels, and runs of every outcome, for the narrow screen and the timeline.
  const wide = await c.api('POST', '/api/v1/timers', {
    app: 'looks',
    name: 'a-timer-whose-name-is-long-enough-to-push-a-narrow-screen-sideways',
    every: '90s',
    timezone: 'America/Argentina/Buenos_Aires',
    labels: { team: 'payments-and-invoicing', env: 'production-eu-west-1' },
    status: 'active',
    callback: { url: 'http://127.0.0.1:9/hooks/wide' },
  });
  expect(wide.status).toBe(201);
  const now = Date.now();
  for (const [i, status] of [
    'succeeded',
    'failed',
    'succeeded',
    'missed',
    'skipped',
    'succeeded',
  ].entries()) {
    await recordRun(c.stores.database, {
      timerId,
      app: 'looks',
      runAt: now - (i + 1) * 60_000,
      status: status as TaskStatus,
    });
  }
}, 60_000);
afterAll(async () => {
  await c?.stop();
});

async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await c.browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${c.base}${path}`);
  return page;
}

describe('the console in a browser', () => {
  it('keeps the next fire saying how far off it is, with the zoned time below and on hover', async () => {
    const page = await open('/dashboard/timers');
    const next = page.locator(`#timer-${timerId} [data-field="next"] time`);
    const first = (await next.textContent()) ?? '';
    expect(first).toMatch(/^(in \d+ s|in 1 min|now)$/);
    expect(await next.getAttribute('title')).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00 \+05:30 · Asia\/Kolkata$/,
    );
    expect(await page.locator(`#timer-${timerId} [data-field="next"] .abs`).textContent()).toMatch(
      / \+05:30$/,
    );
    // The script counts down by itself, without reloading the page.
    await expect.poll(() => next.textContent(), { timeout: 5000 }).not.toBe(first);
    expect(await next.textContent()).toMatch(/^(in \d+ s|in 1 min|now|\d+ s ago)$/);
    await page.context().close();
  });

  it('goes dark with the system: background, text and badges from the dark palette', async () => {
    const context = await c.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const colours = () =>
      page.evaluate(`(() => {
        const css = (el, prop) => getComputedStyle(el).getPropertyValue(prop);
        const badge = document.querySelector('.badge.s-succeeded');
        return { bg: css(document.body, 'background-color'), fg: css(document.body, 'color'), badge: css(badge, 'background-color') };
      })()`) as Promise<{ bg: string; fg: string; badge: string }>;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${c.base}/dashboard/timers/${timerId}`);
    expect(await colours()).toEqual({
      bg: 'rgb(255, 255, 255)',
      fg: 'rgb(31, 35, 40)',
      badge: 'rgb(218, 251, 225)',
    });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await colours()).toEqual({
      bg: 'rgb(13, 17, 23)',
      fg: 'rgb(230, 237, 243)',
      badge: 'rgb(18, 38, 30)',
    });
    // The form's boxes follow too (color-scheme), so typed text stays readable.
    await page.goto(`${c.base}/dashboard/timers/new`);
    const input = await page.evaluate(`getComputedStyle(document.getElementById('f-name')).backgroundColor`);
    expect(input).not.toBe('rgb(255, 255, 255)');
    await page.goto(`${c.base}/dashboard/timers/${timerId}`);
    await page.screenshot({ path: `${SHOTS}timer-dark.png`, fullPage: true });
    await page.goto(`${c.base}/dashboard/timers`);
    await page.screenshot({ path: `${SHOTS}timers-dark.png`, fullPage: true });
    await context.close();
  });

  /** The page and its tables' boxes fit `width`, and every timer's buttons lie within it. */
  async function fitsWithButtonsInReach(page: Page, width: number): Promise<void> {
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
    // Nor sideways inside a table's box.
    expect(
      await page.evaluate(
        `[...document.querySelectorAll('.table-box')].every((b) => b.scrollWidth <= b.clientWidth)`,
      ),
    ).toBe(true);
    const buttons = page.locator('tr[data-timer-id] button[data-action]');
    expect(await buttons.count()).toBeGreaterThanOrEqual(4);
    for (const button of await buttons.all()) {
      const box = await button.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    }
  }

  it('fits the timers list on a 1,280 px screen without scrolling its table', async () => {
    const page = await open('/dashboard/timers', { width: 1280, height: 800 });
    await fitsWithButtonsInReach(page, 1280);
    await page.context().close();
  });

  it("fits the timers list on a 390 px phone with every timer's buttons in reach", async () => {
    const page = await open('/dashboard/timers', { width: 390, height: 844 });
    await fitsWithButtonsInReach(page, 390);
    await page.screenshot({ path: `${SHOTS}timers-390px.png`, fullPage: true });
    // Reachable means usable: the button works where it is.
    await page.locator(`#timer-${timerId} button[data-action="disable"]`).click();
    await page.locator('.notice[data-done="disabled"]').waitFor();
    expect((await c.api('GET', `/api/v1/timers/${timerId}`)).body.status).toBe('inactive');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.goto(`${c.base}/dashboard/timers/${timerId}`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}timer-390px.png`, fullPage: true });
    await page.context().close();
  });
});
