import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { FONT_SANS, PALETTE } from '../../../dashboard/views/palette.js';
import type { Core } from '../../../src/core.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * Where the console is: `/` and `/dashboard` lead to the timers, bull-board sits at
 * /dashboard/queues and is linked from every page's header. No page under /dashboard
 * loads anything from another host (bull-board's own page links Google Fonts): the console
 * works where only xtimer is reachable, and tells no one else who opens it.
 */

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('console-paths');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

const ORIGIN = 'http://localhost';

/** Every URL a page makes the browser load by itself: `<link href>`, `<script src>`, `<img src>`. */
function loadedUrls(html: string): string[] {
  const urls: string[] = [];
  for (const tag of html.matchAll(/<(?:link|script|img)\b[^>]*>/gi)) {
    const attr = /\b(?:href|src)\s*=\s*["']([^"']*)["']/i.exec(tag[0]);
    if (attr) urls.push(attr[1]!);
  }
  return urls;
}

describe('the way in', () => {
  it('sends / and /dashboard to the timers page', async () => {
    for (const path of ['/', '/dashboard', '/dashboard/']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/dashboard/timers');
    }
  });

  it("serves bull-board's page at /dashboard/queues, linked from the console's header", async () => {
    const board = await app.request('/dashboard/queues');
    expect(board.status).toBe(200);
    const html = await board.text();
    expect(html).toContain('<title>xtimer</title>');
    expect(html).toContain('<base href="/dashboard/queues/"');
    // Its own stylesheet stays: only links to other hosts go.
    expect(html).toMatch(/<link href="static\/css\/main\.[0-9a-f]+\.css" rel="stylesheet">/);

    const timers = await (await app.request('/dashboard/timers')).text();
    expect(timers).toMatch(/<header class="top">[\s\S]*<a href="\/dashboard\/queues"[^>]*>Queues<\/a>/);
  });
});

describe('every page under /dashboard', () => {
  it('loads nothing from another host, Google Fonts included', async () => {
    const created = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'pages' }));
    expect(created.status).toBe(201);
    const id: number = created.body.id;
    const pages = [
      '/dashboard/timers',
      `/dashboard/timers/${id}`,
      `/dashboard/timers/${id}/edit`,
      `/dashboard/timers/${id}/delete`,
      '/dashboard/timers/new',
      '/dashboard/runs?status=failed',
      '/dashboard/audit',
      '/dashboard/nowhere',
      '/dashboard/queues',
      '/dashboard/queues/',
      '/dashboard/queues/queue/execute',
      `/dashboard/queues/queue/execute/${id}_1`,
    ];
    for (const path of pages) {
      const res = await app.request(path);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html, path).not.toMatch(/fonts\.(googleapis|gstatic)\.com/);
      const urls = loadedUrls(html);
      expect(urls.length, path).toBeGreaterThan(0);
      for (const url of urls) {
        expect(new URL(url, `${ORIGIN}${path}`).origin, `${path}: ${url}`).toBe(ORIGIN);
      }
    }
  });
});

describe('the queues board', () => {
  it("wears the console's palette and type, light and dark", async () => {
    const html = await (await app.request('/dashboard/queues')).text();
    const config = JSON.parse(
      /<script id="__UI_CONFIG__" type="application\/json">([^<]*)<\/script>/.exec(html)![1]!,
    );
    expect(config.theme.light).toMatchObject({
      'font-sans': FONT_SANS,
      primary: PALETTE.light.accent,
      foreground: PALETTE.light.fg,
    });
    expect(config.theme.dark).toMatchObject({ primary: PALETTE.dark.accent, card: PALETTE.dark.bg });
  });
});
