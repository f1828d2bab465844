import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { Sink } from '../helpers/sink.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * The dashboard in a real browser (issue 6): Debian's chromium driven by playwright-core
 * against a real xtimer process with every role and a real callback sink. Screenshots go
 * to test-results/dashboard/.
 */

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../test-results/dashboard/', import.meta.url));

let stores: TestStores;
let sink: Sink;
let proc: XtimerProcess;
let browser: Browser;
let base: string;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Reloads `page` until `selector` shows up (the timers page renders on the server). */
async function reloadUntil(page: Page, selector: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await page.locator(selector).count()) === 0) {
    if (Date.now() > deadline)
      throw new Error(`${selector} did not appear on ${page.url()} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
    await page.reload();
  }
}

describe.skipIf(!existsSync(CHROMIUM))(
  'dashboard in a browser (needs /usr/bin/chromium: .ci/run installs it)',
  () => {
    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      stores = await createTestStores('dashboard-e2e');
      sink = await new Sink().start();
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      proc = new XtimerProcess('dashboard', { ...stores.env, PORT: String(port), LOG_LEVEL: 'info' });
      await proc.started();
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
    });

    afterAll(async () => {
      await browser?.close();
      await proc?.stop();
      await sink?.stop();
      await stores?.cleanup();
    });

    it('shows a timer fire on the timers page, disables it there, and opens the queues board', async () => {
      const created = await api('POST', '/api/v1/timers', {
        app: 'shop',
        name: 'every-second',
        cron: '* * * * * *',
        timezone: 'Europe/Berlin',
        status: 'active',
        callback: { url: sink.url('/tick') },
      });
      expect(created.status).toBe(201);
      const id: number = created.body.id;
      await api('POST', '/api/v1/timers', {
        app: 'billing',
        name: 'nightly-invoice',
        cron: '0 30 2 * * *',
        timezone: 'Asia/Shanghai',
        callback: { url: sink.url('/invoice') },
      });

      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();

      // The list: the timer under its app, active, with its next fire times.
      await page.goto(`${base}/dashboard/timers`);
      const row = page.locator(`#timer-${id}`);
      await row.waitFor();
      expect((await row.locator('[data-field="status"]').textContent())?.trim()).toBe('active');
      expect(await page.locator('section[data-app="shop"]').count()).toBe(1);
      expect(await page.locator('section[data-app="billing"]').count()).toBe(1);
      await eventually(() => sink.forTimer(id).length >= 3, 'three deliveries', 20_000);
      await reloadUntil(page, `#timer-${id} svg.spark rect`);
      await page.screenshot({ path: `${SHOTS}timers-page.png`, fullPage: true });

      // The timer's page: its runs appear as they fire.
      await page.locator(`#timer-${id} a`, { hasText: 'every-second' }).click();
      await page.waitForURL(`${base}/dashboard/timers/${id}`);
      await reloadUntil(page, '#runs-table tr[data-status="succeeded"]');
      const run = page.locator('#runs-table tr[data-status="succeeded"]').first();
      const cells = await run.locator('td').allInnerTexts();
      expect(cells[1]).toBe('succeeded');
      expect(cells[2]).toBe('1'); // attempts
      expect(cells[3]).toMatch(/^\d+ ms$/); // lateness
      expect(cells[4]).toBe('200');
      expect(cells[6]).toBe('ok'); // the sink's answer
      expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0[12]:00$/); // Berlin time
      expect(await page.locator('svg.histogram').count()).toBe(1);
      await page.screenshot({ path: `${SHOTS}timer-page.png`, fullPage: true });

      // Disable from the page: the form posts, the page comes back inactive.
      await page.locator('button[data-action="disable"]').click();
      await page.waitForURL(`${base}/dashboard/timers/${id}`);
      await page.locator('h1 [data-field="status"]', { hasText: 'inactive' }).waitFor();
      expect(await page.locator('button[data-action="enable"]').count()).toBe(1);
      expect((await api('GET', `/api/v1/timers/${id}`)).body.status).toBe('inactive');
      await page.screenshot({ path: `${SHOTS}timer-disabled.png`, fullPage: true });

      // The board, reached from the top bar: both queues.
      await page.locator('header.top a', { hasText: 'Queues' }).click();
      await page.waitForURL(`${base}/dashboard`);
      await page.getByText('execute — runs').first().waitFor({ timeout: 20_000 });
      await page.getByText('trigger — slices').first().waitFor();
      await page.screenshot({ path: `${SHOTS}board.png`, fullPage: true });

      // The board links back to the timers page from its menu.
      await page.locator('header button[aria-haspopup="menu"]').click();
      await page.getByText('Timers', { exact: true }).click();
      await page.waitForURL(`${base}/dashboard/timers`);

      // The execute queue lists this timer's runs by task key, timer and time.
      await page.goto(`${base}/dashboard/queue/execute`);
      await page
        .getByText(new RegExp(`^${id}_\\d+ · timer ${id} at `))
        .first()
        .waitFor({ timeout: 20_000 });
      await page.screenshot({ path: `${SHOTS}execute-queue.png`, fullPage: true });
      await context.close();
    });
  },
);
