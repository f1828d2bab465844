import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleInBrowser, startConsole } from './console-in-browser.js';

/**
 * How the console reads in a real browser: times say how far from now they are and keep
 * saying it as the clock moves, with the zoned time beside them.
 */

let c: ConsoleInBrowser;
let timerId: number;

beforeAll(async () => {
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
});
