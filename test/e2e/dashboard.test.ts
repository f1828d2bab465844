import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * The dashboard in a real browser: Debian's chromium driven by
 * playwright-core against a real xtimer process with every role and a real callback
 * sink. A timer is created, edited (the cron's preview follows the typing), run now,
 * its failed run retried, disabled, found by its label, its changes read, and deleted,
 * all on the page; the pages fit a 375 px phone and a 1,920 px screen. Screenshots go
 * to test-results/dashboard/. Without chromium the test fails and says how to install it.
 */

const CHROMIUM = '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';
const SHOTS = fileURLToPath(new URL('../../test-results/dashboard/', import.meta.url));

let browser: Browser;
/** While true the sink answers /flaky with 500. */
let flaky = true;

const e2e = useCluster('dashboard-e2e', {
  respond: (d) =>
    d.path === '/flaky' && flaky ? { status: 500, body: 'receiver down' } : { status: 200, body: 'ok' },
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e2e.base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? JSON.parse(raw) : null };
}

/** What a cell (or any element) shows, trimmed. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

/** The page scrolls sideways: its content is wider than the window. */
async function overflowsSideways(page: Page): Promise<boolean> {
  // A string: it runs in the page, where the DOM is (the test's TypeScript has no DOM types).
  return (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')) === true;
}

describe('dashboard in a browser', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `the browser tests need Chromium at ${CHROMIUM}: install it with \`${INSTALL}\` (.ci/run does)`,
      );
    }
    await mkdir(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows a timer fire on the timers page, disables it there, and opens the queues board', async () => {
    const created = await api('POST', '/api/v1/timers', {
      app: 'shop',
      name: 'every-second',
      cron: '* * * * * *',
      timezone: 'Europe/Berlin',
      status: 'active',
      callback: { url: e2e.sink.url('/tick') },
    });
    expect(created.status).toBe(201);
    const id: number = created.body.id;
    await api('POST', '/api/v1/timers', {
      app: 'billing',
      name: 'nightly-invoice',
      cron: '0 30 2 * * *',
      timezone: 'Asia/Shanghai',
      callback: { url: e2e.sink.url('/invoice') },
    });

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();

    // The list: the timer under its app, active, with its next fire; the list refreshes itself.
    await page.goto(`${e2e.base}/dashboard/timers`);
    const row = page.locator(`#timer-${id}`);
    await row.waitFor();
    expect((await row.locator('[data-field="status"]').textContent())?.trim()).toBe('active');
    expect(await page.locator('section[data-app="shop"]').count()).toBe(1);
    expect(await page.locator('section[data-app="billing"]').count()).toBe(1);
    await eventually(() => e2e.sink.forTimer(id).length >= 3, 'three deliveries', 20_000);
    await page.reload();
    await page.locator(`#timer-${id} svg.spark rect`).first().waitFor({ timeout: 20_000 });
    await page
      .locator(`#timer-${id} [data-field="success"]`, { hasText: '100%' })
      .waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}timers-page.png`, fullPage: true });

    // The timer's page: its runs appear as they fire.
    await page.locator(`#timer-${id} a`, { hasText: 'every-second' }).click();
    await page.waitForURL(`${e2e.base}/dashboard/timers/${id}`);
    const run = page.locator('#runs-table tr[data-status="succeeded"]').first();
    await run.waitFor({ timeout: 20_000 });
    expect(await text(run.locator('td').nth(1))).toBe('succeeded');
    expect(await text(run.locator('[data-field="attempts"]'))).toBe('1');
    expect(await text(run.locator('[data-field="lateness"]'))).toMatch(/^\d+ ms$/);
    expect(await text(run.locator('td').nth(4))).toBe('200');
    expect(await text(run.locator('td').nth(6))).toBe('ok'); // the sink's answer
    expect(await text(run.locator('td').first())).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0[12]:00$/);
    expect(await page.locator('svg.histogram').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}timer-page.png`, fullPage: true });

    // Disable from the page: the form posts, the page comes back inactive and says so.
    await page.locator('h1 button[data-action="disable"]').click();
    await page.locator('.notice[data-done="disabled"]').waitFor();
    await page.locator('h1 [data-field="status"]', { hasText: 'inactive' }).waitFor();
    expect(await page.locator('h1 button[data-action="enable"]').count()).toBe(1);
    expect((await api('GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');

    // The board, reached from the top bar: both queues, and where the failures are.
    await page.locator('header.top a', { hasText: 'Queues' }).click();
    await page.waitForURL(`${e2e.base}/dashboard/queues`);
    await page.getByText('execute — runs').first().waitFor({ timeout: 20_000 });
    await page.getByText('trigger — slices').first().waitFor();
    await page.screenshot({ path: `${SHOTS}board.png`, fullPage: true });

    // The board's menu links to the failed runs and back to the timers page.
    await page.locator('header button[aria-haspopup="menu"]').click();
    // The menu renders a moment after the click.
    await page.getByText('Failed runs', { exact: true }).first().waitFor();
    expect(await page.getByText('Failed runs', { exact: true }).count()).toBe(1);
    await page.getByText('Timers', { exact: true }).click();
    await page.waitForURL(`${e2e.base}/dashboard/timers`);

    // The execute queue lists this timer's runs by task key, timer and time.
    await page.goto(`${e2e.base}/dashboard/queues/queue/execute`);
    await page
      .getByText(new RegExp(`^${id}_\\d+ · timer ${id} at `))
      .first()
      .waitFor({ timeout: 20_000 });
    await context.close();
  });

  it('creates, edits, runs, retries, disables, finds, audits and deletes a timer on the page', async () => {
    await api('POST', '/api/v1/timers', {
      app: 'web',
      name: 'someone-else',
      cron: '0 0 * * * *',
      labels: { team: 'other' },
      callback: { url: e2e.sink.url('/other') },
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();

    // Create, from the list.
    await page.goto(`${e2e.base}/dashboard/timers`);
    await page.locator('a[data-action="new"]').click();
    await page.waitForURL(`${e2e.base}/dashboard/timers/new`);
    await page.fill('#f-app', 'web');
    await page.fill('#f-name', 'made-in-the-browser');
    await page.fill('#f-cron', '0 0 * * * *');
    await page.fill('#f-timezone', 'Asia/Tokyo');
    await page.fill('#f-callbackUrl', e2e.sink.url('/flaky'));
    await page.fill('#f-retryMaxAttempts', '1');
    await page.fill('#f-labels', 'team: web\nenv: prod');
    await page.fill('#f-description', 'Created by the browser test.');
    await page.check('#f-active');
    // Bad input first: the API's message beside the field, nothing saved.
    await page.fill('#f-cron', '0 0 25 * * *');
    await page.locator('button[data-action="save"]').click();
    await page.locator('[data-error-for="cron"]', { hasText: 'hour field' }).waitFor();
    expect((await api('GET', '/api/v1/timers?app=web&q=made-in')).body.items).toEqual([]);
    await page.fill('#f-cron', '0 0 * * * *');
    await page.locator('button[data-action="save"]').click();
    await page.locator('.notice[data-done="created"]').waitFor();
    const id = Number(/\/dashboard\/timers\/(\d+)/.exec(page.url())?.[1]);
    expect((await api('GET', `/api/v1/timers/${id}`)).body).toMatchObject({
      status: 'active',
      timezone: 'Asia/Tokyo',
      labels: { team: 'web', env: 'prod' },
      retry: { maxAttempts: 1 },
    });

    // Edit: the next five fires follow the cron as it is typed, then the change is saved.
    await page.locator('a[data-action="edit"]').click();
    const preview = page.locator('#preview li');
    await expect.poll(() => preview.count()).toBe(5);
    expect(await text(preview.first())).toMatch(/:00:00 \+09:00$/);
    await page.fill('#f-cron', '');
    await page.locator('#f-cron').pressSequentially('0 15 9 * * *');
    await page.locator('#preview[data-cron="0 15 9 * * *"]').waitFor();
    for (const li of await preview.all()) expect(await text(li)).toMatch(/ 09:15:00 \+09:00$/);
    await page.screenshot({ path: `${SHOTS}timer-edit.png`, fullPage: true });
    await page.locator('button[data-action="save"]').click();
    await page.locator('.notice[data-done="updated"]').waitFor();
    expect((await api('GET', `/api/v1/timers/${id}`)).body.cron).toBe('0 15 9 * * *');

    // Run now: the run appears by itself (live), and fails, since the receiver answers 500.
    await page.locator('h1 button[data-action="trigger"]').click();
    await page.locator('.notice[data-done="triggered"]').waitFor();
    const task = new URL(page.url()).searchParams.get('task');
    expect(task).toMatch(new RegExp(`^${id}_\\d+$`));
    const manual = page.locator(`#run-${task}`);
    await page.locator(`#run-${task}[data-status="failed"]`).waitFor({ timeout: 30_000 });
    expect(await manual.getAttribute('data-trigger')).toBe('manual');

    // Retry it once the receiver is back: the same run succeeds as its second attempt.
    flaky = false;
    await manual.locator('button[data-action="retry"]').click();
    await page.locator('.notice[data-done="retried"]').waitFor();
    await page.locator(`#run-${task}[data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    expect(await text(page.locator(`#run-${task} [data-field="attempts"]`))).toBe('2');
    expect(e2e.sink.deliveries.filter((d) => d.taskId === task).map((d) => d.attempt)).toEqual([1, 2]);
    await page.screenshot({ path: `${SHOTS}timer-retried.png`, fullPage: true });

    // Disable.
    await page.locator('h1 button[data-action="disable"]').click();
    await page.locator('h1 [data-field="status"]', { hasText: 'inactive' }).waitFor();

    // Find it by its label on the list: only it.
    await page.goto(`${e2e.base}/dashboard/timers?app=web`);
    await page.locator('input[name="label"]').first().fill('team:web');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/label=team%3Aweb/);
    const rows = page.locator('tr[data-timer-id]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-timer-id')).toBe(String(id));
    expect(await text(page.locator(`#timer-${id} [data-field="next"]`))).toBe('none');

    // Its changes, on its page: who did what, newest first.
    await page.locator(`#timer-${id} a`, { hasText: 'made-in-the-browser' }).click();
    const actions = await page
      .locator('#audit-table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-action'), tr.getAttribute('data-actor')]));
    expect(actions).toEqual([
      ['disable', 'open'],
      ['retry', 'open'],
      ['trigger', 'open'],
      ['update', 'open'],
      ['create', 'open'],
    ]);
    expect(await text(page.locator('#audit-table tr[data-action="update"] .change'))).toMatch(
      /cron: 0 0 \* \* \* \* → 0 15 9 \* \* \*/,
    );

    // Delete, through its confirm step.
    await page.locator('a[data-action="delete"]').click();
    await page.locator('button[data-action="confirm-delete"]').click();
    await page.locator('.notice[data-done="deleted"]').waitFor();
    expect((await api('GET', `/api/v1/timers/${id}`)).status).toBe(404);
    await page.goto(`${e2e.base}/dashboard/audit?app=web`);
    expect(await page.locator('#audit-table tr[data-action="delete"]').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}changes.png`, fullPage: true });
    await context.close();
  });

  it('fits a 375 px phone and a 1,920 px screen without sideways scrolling', async () => {
    const { body: timer } = await api('POST', '/api/v1/timers', {
      app: 'layout-with-a-rather-long-application-name',
      name: 'a-timer-whose-name-is-long-enough-to-push-a-narrow-screen-sideways',
      cron: '* * * * * *',
      timezone: 'America/Argentina/Buenos_Aires',
      labels: { team: 'payments-and-invoicing', env: 'production-eu-west-1' },
      description: 'A description with words, to wrap.',
      callback: { url: e2e.sink.url(`/layout/${'segment/'.repeat(20)}end`) },
      status: 'active',
    });
    for (const [width, height] of [
      [375, 812],
      [1920, 1080],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      for (const path of [
        '/dashboard/timers',
        `/dashboard/timers/${timer.id}`,
        `/dashboard/timers/${timer.id}/edit`,
        '/dashboard/timers/new',
        '/dashboard/runs?status=failed',
        '/dashboard/audit',
      ]) {
        await page.goto(`${e2e.base}${path}`);
        expect(await overflowsSideways(page), `${path} at ${width} px`).toBe(false);
      }
      await page.goto(`${e2e.base}/dashboard/timers`);
      await page.screenshot({ path: `${SHOTS}timers-${width}px.png`, fullPage: true });
      // With its runs (the every-second timer has fired by now; the page refreshes itself).
      await page.goto(`${e2e.base}/dashboard/timers/${timer.id}`);
      await page.locator('#runs-table tr[data-status="succeeded"]').first().waitFor({ timeout: 20_000 });
      expect(await overflowsSideways(page), `the timer's page with runs at ${width} px`).toBe(false);
      await page.screenshot({ path: `${SHOTS}timer-${width}px.png`, fullPage: true });
      await context.close();
    }
  });
});
