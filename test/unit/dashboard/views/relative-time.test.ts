import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { pageScriptRoutes } from '../../../../dashboard/page-scripts.js';
import { relativeTime, whenRelative } from '../../../../dashboard/views/layout.js';
import { runTimeline } from '../../../../dashboard/views/run-timeline.js';
import type { Task, TaskStatus } from '../../../../src/domain/timer.js';

const NOW = Date.UTC(2030, 0, 2, 10, 0, 0);
const S = 1000;

describe('relativeTime', () => {
  it.each([
    [NOW + 5 * S, 'in 5 s'],
    [NOW + 500, 'now'],
    [NOW - 59 * S, '59 s ago'],
    [NOW - 3 * 60 * S, '3 min ago'],
    [NOW + 59 * 60 * S + 59 * S, 'in 59 min'],
    [NOW + 2 * 3600 * S, 'in 2 h'],
    [NOW - 47 * 3600 * S, '47 h ago'],
    [NOW - 3 * 86_400 * S, '3 d ago'],
  ])('says %i as %s', (ms, text) => {
    expect(relativeTime(ms, NOW)).toBe(text);
  });

  it('is said the same by the page script that keeps it current', async () => {
    const script = await (await pageScriptRoutes().request('/times.js')).text();
    const offsets = [
      -400_000_000, -172_800_000, -90_000_000, -3_600_000, -61_000, -1500, 0, 999, 45_000, 7_200_000,
    ];
    const elements = offsets.map((d) => ({ dataset: { rel: String(NOW + d) }, textContent: '' }));
    runInNewContext(script, {
      Date: { now: () => NOW },
      setInterval: () => 0,
      document: { querySelectorAll: () => elements },
    });
    expect(elements.map((e) => e.textContent)).toEqual(offsets.map((d) => relativeTime(NOW + d, NOW)));
  });

  it('shows the time in the zone below and on hover', async () => {
    const markup = String(await whenRelative(NOW + 5 * S, 'Asia/Shanghai', NOW));
    expect(markup).toContain(`data-rel="${NOW + 5 * S}"`);
    expect(markup).toContain('title="2030-01-02 18:00:05 +08:00 · Asia/Shanghai">in 5 s</time>');
    expect(markup).toContain('<span class="abs">2030-01-02 18:00:05 +08:00</span>');
  });
});

describe('runTimeline', () => {
  const run = (runAt: number, status: TaskStatus) => ({ timerId: 1, runAt, status }) as Task;

  it('places a dot per run on a time axis ending now, coloured and titled by outcome', async () => {
    const runs = [run(NOW - 10 * S, 'failed'), run(NOW - 60 * S, 'succeeded'), run(NOW - 110 * S, 'missed')];
    const svg = String(await runTimeline(runs, 'UTC', NOW, 120, 30));
    const dots = [...svg.matchAll(/<circle class="t-(\w+)" data-status="\w+" cx="([\d.]+)"/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    // Oldest left at the edge, now at the right edge (minus the dot's radius).
    expect(dots).toEqual(
      [
        ['missed', 4.5],
        ['succeeded', 4.5 + (50 / 110) * 111],
        ['failed', 4.5 + (100 / 110) * 111],
      ].map(([s, x]) => [s, Math.round((x as number) * 10) / 10]),
    );
    expect(svg).toContain('<title>2030-01-02 09:59:50 +00:00 · failed</title>');
    expect(svg).toMatch(/1 succeeded<\/span>/);
  });

  it('says so when there are no runs', async () => {
    expect(String(await runTimeline([], 'UTC', NOW))).toContain('No runs yet.');
  });
});
