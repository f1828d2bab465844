import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXtimer } from '../../helpers/cli.js';
import { type ConsoleInBrowser, startConsole } from './console-in-browser.js';

/**
 * Bulk actions on the timers list in a real browser: rows ticked by hand and paused with
 * one note and until, every timer matching the filter resumed, Run now on a selection, each
 * answered with how many changed and a link to the batch's changes; `xtimer timers bulk`
 * over the same API.
 */
let c: ConsoleInBrowser;

beforeAll(async () => {
  c = await startConsole('console-bulk');
}, 60_000);
afterAll(async () => {
  await c?.stop();
});

async function newPage(): Promise<Page> {
  const context = await c.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

async function timer(app: string, name: string, team: string): Promise<number> {
  const res = await c.api('POST', '/api/v1/timers', {
    app,
    name,
    cron: '0 0 3 * * *',
    status: 'active',
    labels: { team },
    callback: { url: 'http://127.0.0.1:9/hooks/bulk' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const statusOf = async (id: number) => (await c.api('GET', `/api/v1/timers/${id}`)).body;

describe('bulk actions on the timers list', () => {
  it('keeps ticked rows across the live refresh, pauses them with one note and until, and says how many changed', {
    timeout: 30_000,
  }, async () => {
    const a = await timer('fleet', 'fleet-a', 'pay');
    const b = await timer('fleet', 'fleet-b', 'pay');
    const other = await timer('fleet', 'fleet-c', 'ops');
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers?app=fleet`);
    await page.getByLabel('select fleet-a', { exact: true }).check();
    await page.getByLabel('select fleet-b', { exact: true }).check();
    // The list refreshes itself while a selection is made: ticked rows stay ticked.
    // (No refresh runs while a box in the list has the focus: it moves off it, as a person's would.)
    await page.evaluate(
      `document.activeElement.blur(); document.querySelector('#timers-live table').dataset.before = '1'`,
    );
    await expect
      .poll(() => page.locator('#timers-live table[data-before]').count(), { timeout: 15_000 })
      .toBe(0);
    expect(await page.getByLabel('select fleet-a', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('select fleet-c', { exact: true }).isChecked()).toBe(false);
    await page.getByLabel('Note', { exact: true }).fill('INC-9: receiver moving');
    await page.getByLabel('Until', { exact: true }).fill('2h');
    await page.getByRole('button', { name: 'Pause selected' }).click();
    const said = page.locator('.notice[data-done="bulk-pause"]');
    await said.waitFor();
    expect(await said.textContent()).toContain('Paused 2 of 2 selected timers.');
    for (const id of [a, b]) {
      expect(await statusOf(id)).toMatchObject({ status: 'inactive', pausedNote: 'INC-9: receiver moving' });
      expect(Date.parse((await statusOf(id)).pausedUntil) - Date.now()).toBeGreaterThan(7_000_000);
    }
    expect((await statusOf(other)).status).toBe('active');
    // One batch: its changes are the two pauses.
    await said.getByRole('link', { name: "The batch's changes" }).click();
    await expect.poll(() => page.locator('#audit-table tbody tr').count()).toBe(2);
    await page.context().close();
  });

  it('resumes every timer matching the filter, and runs a selection now', async () => {
    const a = await timer('crew', 'crew-a', 'pay');
    const b = await timer('crew', 'crew-b', 'pay');
    await c.api('POST', `/api/v1/timers/${a}/disable`, { note: 'old' });
    await c.api('POST', `/api/v1/timers/${b}/disable`, {});
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers?app=crew&label=team:pay`);
    await page.getByLabel('select all matching the filter').check();
    await page.getByRole('button', { name: 'Resume selected' }).click();
    const resumed = page.locator('.notice[data-done="bulk-resume"]');
    await resumed.waitFor();
    expect(await resumed.textContent()).toContain('Resumed 2 of 2 selected timers.');
    expect((await statusOf(a)).status).toBe('active');
    expect((await statusOf(b)).status).toBe('active');
    // The filter is kept: the list still shows crew's timers only.
    expect(new URL(page.url()).searchParams.get('app')).toBe('crew');

    await page.getByLabel('select crew-a', { exact: true }).check();
    await page.locator('button[data-action="bulk-trigger"]').click();
    const ran = page.locator('.notice[data-done="bulk-trigger"]');
    await ran.waitFor();
    expect(await ran.textContent()).toContain('Ran now 1 of 1 selected timer.');
    const runs = await c.api('GET', `/api/v1/timers/${a}/tasks?upcoming=true&limit=5`);
    const history = await c.api('GET', `/api/v1/timers/${a}/tasks?limit=5`);
    const manual = [...runs.body.items, ...history.body.items].filter(
      (t: { trigger: string }) => t.trigger === 'manual',
    );
    expect(manual).toHaveLength(1);
    await page.context().close();
  });

  it('answers an empty selection on a page that says what to do, changing nothing', async () => {
    const page = await newPage();
    await page.goto(`${c.base}/dashboard/timers?app=fleet`);
    await page.getByRole('button', { name: 'Resume selected' }).click();
    expect(await page.locator('.error').textContent()).toContain('select timers first');
    await page.context().close();
  });

  it('takes the same bulk actions from the CLI', async () => {
    const a = await timer('cli', 'cli-a', 'pay');
    const b = await timer('cli', 'cli-b', 'pay');
    const res = await runXtimer(c.base, '', [
      'timers',
      'bulk',
      'pause',
      String(a),
      String(b),
      '--note',
      'maint',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Paused 2 of 2 timers');
    expect((await statusOf(a)).pausedNote).toBe('maint');
  });
});
