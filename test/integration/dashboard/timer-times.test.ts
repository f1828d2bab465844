import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import type { Core } from '../../../src/core.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../helpers/stores.js';

/**
 * Times as people read them on the timers pages: the next fire and the last run as far
 * from now as they are, with the time in the timer's zone below and on hover, and a
 * timer's recent runs as a timeline of dots coloured by outcome.
 */

let stores: TestStores;
let core: Core;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('timer-times');
  core = createTestCore(stores);
  app = createTestApp(core);
});
afterAll(async () => {
  await core.queues.close();
  await stores.cleanup();
});

const page = async (path: string) => (await app.request(path)).text();

describe('relative times and the run timeline', () => {
  it('shows next fire and last run relative, the zoned time below and on hover, and the runs by outcome', async () => {
    const { body: timer } = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'times', cron: '0 * * * * *', timezone: 'Asia/Kolkata', status: 'active' }),
    );
    const now = Date.now();
    const outcomes = ['succeeded', 'failed', 'missed', 'succeeded', 'skipped'] as const;
    for (const [i, status] of outcomes.entries()) {
      await recordRun(stores.database, {
        timerId: timer.id,
        app: 'times',
        runAt: now - (i + 3) * 60_000,
        status,
      });
    }

    // Rendered in the last second before the minute, the next fire reads "now".
    const list = await page('/dashboard/timers?app=times');
    const row = new RegExp(`<tr id="timer-${timer.id}"[\\s\\S]*?</tr>`).exec(list)![0];
    expect(row).toMatch(
      /data-field="next"><span class="when"><time datetime="[^"]+" data-rel="\d+" title="\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00 \+05:30 · Asia\/Kolkata">(?:in (?:\d+ s|1 min)|now)<\/time><span class="abs">\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00 \+05:30<\/span>/,
    );
    expect(row).toMatch(
      /data-field="last"><div class="last"><span class="badge s-succeeded">succeeded<\/span> <span class="when"><time [^>]*>3 min ago<\/time>/,
    );
    expect(list).toContain('/dashboard/assets/times.js');

    const detail = await page(`/dashboard/timers/${timer.id}`);
    expect(detail).toMatch(
      /data-field="next-fire"><span class="muted">Next fire<\/span> <span class="when"><time [^>]*>(?:in (?:\d+ s|1 min)|now)<\/time>/,
    );
    expect(detail).toMatch(
      /data-field="last-run"><span class="muted">Last run<\/span> <span class="badge s-succeeded">succeeded<\/span> <span class="when"><time [^>]*>3 min ago</,
    );
    const timeline = /<svg class="timeline"[\s\S]*?<\/svg>/.exec(detail)?.[0] ?? '';
    const dots = [...timeline.matchAll(/data-status="(\w+)" cx="([\d.]+)"[^>]*><title>([^<]*)<\/title>/g)];
    // Oldest first along the axis, each titled with its time in the timer's zone.
    expect(dots.map((d) => d[1])).toEqual([...outcomes].reverse());
    const xs = dots.map((d) => Number(d[2]));
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    for (const d of dots)
      expect(d[3]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})? \+05:30 · \w+$/);
    expect(detail).toMatch(/2 succeeded<\/span>/);
  });

  it('says none for an inactive timer and shows no timeline before any run', async () => {
    const { body: timer } = await call(app, 'POST', '/api/v1/timers', timerBody({ app: 'times' }));
    const detail = await page(`/dashboard/timers/${timer.id}`);
    expect(detail).toMatch(
      /data-field="next-fire"><span class="muted">Next fire<\/span> <span class="muted">none<\/span>/,
    );
    expect(detail).toMatch(
      /data-field="last-run"><span class="muted">Last run<\/span> <span class="muted">none yet<\/span>/,
    );
    expect(detail).toContain('id="no-timeline"');
  });
});
