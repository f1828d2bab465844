import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallText } from '../../../dashboard/wall-time.js';
import { runXtimer } from '../../helpers/cli.js';
import { apiCall, useCluster } from '../../helpers/cluster.js';
import { launchChromium } from './console-in-browser.js';

/**
 * A timer's backfills and runs in a real browser, against a process with every role and a
 * real receiver: a backfill previewed, started and watched until it completes, another
 * cancelled while it sends; a failing run opened (its request with the secret masked, the
 * answer kept, byte sizes) and retried from there; a run that failed once and then succeeded
 * opened with each attempt's answer and headers; the same runs printed by `xtimer inspect`.
 */
const SECRET = 'Bearer sk_live_console_inspector';
const e2e = useCluster('console-runs', {
  respond: (d) => {
    if (d.headers['x-team'] === 'failing') return { status: 502, body: 'receiver down: try later' };
    // A receiver that fails its first attempt with a note in a header, then answers.
    if (d.headers['x-team'] === 'flaky' && d.attempt === 1) {
      return {
        status: 500,
        body: 'cold start',
        headers: { 'X-Receiver-Note': 'warming up', 'Set-Cookie': 'sid=cookie_s3cr3t' },
      };
    }
    if (d.headers['x-team'] === 'flaky') {
      return { status: 200, body: '{"done":true}', headers: { 'Content-Type': 'application/json' } };
    }
    return { status: 200 };
  },
});

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function timer(name: string, headers: Record<string, string> = {}) {
  return apiCall(e2e.base, 'POST', '/api/v1/timers', {
    app: 'console',
    name,
    cron: '* * * * * *',
    status: 'active',
    retry: { maxAttempts: 1 },
    callback: { url: e2e.sink.url(), method: 'POST', headers, body: '{"from":"console"}' },
  });
}

describe('backfills in the console', () => {
  it('previews a range, starts it, and shows its progress live until it completed', {
    timeout: 90_000,
  }, async () => {
    const t = await timer('backfilled');
    const to = Math.floor(Date.now() / 1000) * 1000 - 20_000;
    const from = to - 10_000;
    const page = await newPage();
    await page.goto(`${e2e.base}/dashboard/timers/${t.id}`);
    await page.getByRole('link', { name: 'Backfill', exact: true }).click();
    await field(page, 'From').fill(wallText(from, 'UTC'));
    await field(page, 'To').fill(wallText(to, 'UTC'));
    await page.getByRole('button', { name: 'Preview' }).click();
    expect(await page.locator('#backfill-preview [data-count="runs"]').textContent()).toBe('10');
    expect(await page.locator('#backfill-preview [data-count="planned"]').textContent()).toBe('10');
    await page.getByRole('button', { name: 'Start backfill' }).click();
    await page.locator('.notice[data-done="backfill-started"]').waitFor();
    // The live region refreshes itself: the page is not reloaded by the test.
    await page.locator('[data-field="backfill-status"] .s-completed').waitFor({ timeout: 60_000 });
    const count = (name: string) => page.locator(`[data-count="${name}"]`).textContent();
    expect(await count('planned')).toBe('10');
    expect(await count('sent')).toBe('10');
    expect(await count('done')).toBe('10');
    expect(await count('failed')).toBe('0');
    expect(await page.getByRole('button', { name: 'Cancel backfill' }).count()).toBe(0);
    const backfilled = e2e.sink.forTimer(t.id).filter((d) => d.headers['x-xtimer-trigger'] === 'backfill');
    expect(new Set(backfilled.map((d) => d.scheduledAt)).size).toBe(10);
    // The CLI's preview of the same range: every run is in the history now.
    const range = ['--from', new Date(from).toISOString(), '--to', new Date(to).toISOString()];
    const dry = await runXtimer(e2e.base, '', ['timers', 'backfill', String(t.id), ...range, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('10 runs in the range; 0 would be sent (10 already in the history).');
    await page.context().close();
  });

  it('refuses a range ending in the future or overlapping one under way beside the form, and cancels it', {
    timeout: 60_000,
  }, async () => {
    const t = await timer('cancelled');
    const page = await newPage();
    const base = `${e2e.base}/dashboard/timers/${t.id}/backfills`;
    const now = Date.now();
    await page.goto(`${base}?from=${now - 60_000}&to=${now + 3_600_000}`);
    expect(await page.locator('.error[data-field="range"]').textContent()).toContain('must not be after now');
    expect(await page.getByRole('button', { name: 'Start backfill' }).count()).toBe(0);
    // 20 minutes of seconds: 1,200 runs, some 24 s of sending at BACKFILL_RATE.
    const to = Math.floor(now / 1000) * 1000 - 600_000;
    await page.goto(`${base}?from=${to - 1_200_000}&to=${to}`);
    expect(await page.locator('#backfill-preview [data-count="planned"]').textContent()).toBe('1200');
    await page.getByRole('button', { name: 'Start backfill' }).click();
    await page.locator('.notice[data-done="backfill-started"]').waitFor();
    const progress = page.url();
    // A second backfill over part of its range while the first sends: refused beside the form.
    await page.goto(`${base}?from=${to - 600_000}&to=${to + 300_000}`);
    await page.getByRole('button', { name: 'Start backfill' }).click();
    expect(await page.locator('.error[data-field="range"]').textContent()).toContain('still under way');
    await page.goto(progress);
    await page.getByRole('button', { name: 'Cancel backfill' }).click();
    await page.locator('.notice[data-done="backfill-cancelled"]').waitFor();
    await page.locator('[data-field="backfill-status"] .s-cancelled').waitFor();
    const id = Number(/\/backfills\/(\d+)/.exec(page.url())?.[1]);
    const b = await apiCall(e2e.base, 'GET', `/api/v1/timers/${t.id}/backfills/${id}`);
    expect(b.status).toBe('cancelled');
    expect(b.sent).toBeLessThan(1200);
    await page.context().close();
  });
});

describe('the run inspector', () => {
  it("opens a failed run's request and answer, masks the secret, and retries it", {
    timeout: 60_000,
  }, async () => {
    const t = await apiCall(e2e.base, 'POST', '/api/v1/timers', {
      app: 'console',
      name: 'failing',
      cron: '0 0 0 1 1 *',
      status: 'inactive',
      retry: { maxAttempts: 1 },
      callback: {
        url: e2e.sink.url('/hooks/failing'),
        method: 'POST',
        headers: { Authorization: SECRET, 'X-Team': 'failing' },
        body: '{"n":"é"}',
      },
    });
    const page = await newPage();
    await page.goto(`${e2e.base}/dashboard/timers/${t.id}`);
    await page.locator('button[data-action="trigger"]').click();
    await page.locator('#runs-table tr[data-status="failed"]').waitFor({ timeout: 30_000 });
    await page.locator('#runs-table tr[data-status="failed"] a[data-action="inspect"]').click();
    await page.locator('#request').waitFor();
    expect(await page.locator('[data-field="request-line"]').textContent()).toBe(
      `POST ${e2e.sink.url('/hooks/failing')}`,
    );
    const headers = await page.locator('[data-field="request-headers"]').textContent();
    expect(headers).toContain('x-team');
    expect(headers).toContain('***');
    expect(await page.content()).not.toContain(SECRET);
    expect(await page.locator('[data-field="request-body"]').textContent()).toBe('{"n":"é"}');
    expect(await page.locator('[data-field="request-bytes"]').textContent()).toBe('10 bytes');
    // Its app has no record, so nothing signs its calls: the page says so, and what makes one.
    expect(await page.locator('[data-field="unsigned"]').textContent()).toContain(
      'app console has no record',
    );
    expect(await page.locator('[data-field="trigger"]').getAttribute('data-trigger')).toBe('manual');
    expect(await page.locator('[data-field="response-status"]').textContent()).toBe('502');
    expect(await page.locator('[data-field="response-body"]').textContent()).toBe('receiver down: try later');
    expect(await page.locator('[data-field="response-bytes"]').textContent()).toContain('24 bytes');
    const taskId = /\/runs\/(\d+_\d+)/.exec(page.url())?.[1] ?? '';

    const cli = await runXtimer(e2e.base, '', ['inspect', taskId]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`request   POST ${e2e.sink.url('/hooks/failing')}`);
    expect(cli.stdout).toContain('authorization: ***');
    expect(cli.stdout).toContain('(not signed: the timer’s app has no record; xtimer apps create <app>');
    expect(cli.stdout).toContain('receiver down: try later');
    expect(cli.stdout).not.toContain(SECRET);

    await page.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.notice[data-done="retried"]').waitFor();
    await expect
      .poll(async () => (await apiCall(e2e.base, 'GET', `/api/v1/timers/${t.id}/tasks/${taskId}`)).task, {
        timeout: 30_000,
      })
      .toMatchObject({ status: 'failed', trigger: 'retry', attempts: 2 });
    await page.context().close();
  });

  it("shows each attempt's answer: a 500 with the receiver's header, then the 200 that ended it", {
    timeout: 60_000,
  }, async () => {
    const t = await apiCall(e2e.base, 'POST', '/api/v1/timers', {
      app: 'console',
      name: 'flaky',
      cron: '0 0 0 1 1 *',
      status: 'inactive',
      retry: { maxAttempts: 3, backoffMs: 200 },
      callback: { url: e2e.sink.url('/hooks/flaky'), method: 'POST', headers: { 'X-Team': 'flaky' } },
    });
    const page = await newPage();
    await page.goto(`${e2e.base}/dashboard/timers/${t.id}`);
    await page.locator('button[data-action="trigger"]').click();
    await page.locator('#runs-table tr[data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await page.locator('#runs-table tr[data-status="succeeded"] a[data-action="inspect"]').click();
    await page.locator('#response').waitFor();
    const first = page.locator('#attempt-1');
    const second = page.locator('#attempt-2');
    expect(await first.locator('[data-field="response-status"]').textContent()).toBe('500');
    expect(await first.locator('[data-field="error"]').textContent()).toBe('HTTP 500');
    expect(await first.locator('[data-field="response-body"]').textContent()).toBe('cold start');
    expect(await first.locator('[data-field="response-bytes"]').textContent()).toBe('10 bytes, kept whole');
    const headers = await first.locator('[data-field="response-headers"]').textContent();
    expect(headers).toContain('x-receiver-note');
    expect(headers).toContain('warming up');
    expect(headers).toContain('set-cookie***');
    expect(await second.locator('[data-field="response-status"]').textContent()).toBe('200');
    expect(await second.locator('[data-field="response-body"]').textContent()).toBe('{"done":true}');
    expect(await second.locator('[data-field="response-headers"]').textContent()).toContain(
      'application/json',
    );
    expect(await page.locator('[data-field="attempts-kept"]').textContent()).toBe('(2 kept of 2 attempts)');
    expect(await page.content()).not.toContain('cookie_s3cr3t');
    const taskId = /\/runs\/(\d+_\d+)/.exec(page.url())?.[1] ?? '';

    const cli = await runXtimer(e2e.base, '', ['inspect', taskId]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('attempt 1  http 500');
    expect(cli.stdout).toContain('  x-receiver-note: warming up');
    expect(cli.stdout).toContain('attempt 2  http 200');
    expect(cli.stdout).not.toContain('cookie_s3cr3t');
    await page.context().close();
  });
});
