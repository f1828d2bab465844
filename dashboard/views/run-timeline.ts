import { html } from 'hono/html';
import { TASK_STATUSES, type Task } from '../../src/domain/timer.js';
import { type Markup, zoned } from './layout.js';

/**
 * A timer's recent runs as a strip of dots on a time axis, coloured by outcome, as inline
 * SVG: when they ran and how they ended at a glance, without a script. Each dot's title
 * gives its time in the timer's zone and its outcome.
 */

const round1 = (n: number) => Math.round(n * 10) / 10;

export function runTimeline(
  runs: readonly Task[],
  timeZone: string,
  now: number,
  width = 640,
  height = 30,
): Markup {
  if (runs.length === 0) return html`<p class="muted" id="no-timeline">No runs yet.</p>`;
  const r = 4.5;
  const from = Math.min(...runs.map((t) => t.runAt));
  // The axis ends now, so a gap since the last run shows as empty space on the right.
  const to = Math.max(now, ...runs.map((t) => t.runAt));
  const span = Math.max(1, to - from);
  const x = (ms: number) => round1(r + ((ms - from) / span) * (width - 2 * r));
  const oldestFirst = [...runs].sort((a, b) => a.runAt - b.runAt);
  const dots = oldestFirst.map(
    (t) =>
      html`<circle class="t-${t.status}" data-status="${t.status}" cx="${x(t.runAt)}" cy="${height / 2}" r="${r}"><title>${zoned(t.runAt, timeZone)} · ${t.status}</title></circle>`,
  );
  const counts = TASK_STATUSES.map((s) => [s, runs.filter((t) => t.status === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  return html`<svg class="timeline" id="run-timeline" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>the last ${runs.length} runs, oldest left, now at the right</title><line class="axis" x1="0" x2="${width}" y1="${height / 2}" y2="${height / 2}"/>${dots}</svg>
<div class="timeline-legend small"><span class="muted">${zoned(from, timeZone)}</span>${counts.map(
    ([s, n]) => html`<span class="key"><span class="swatch t-${s}"></span>${n} ${s}</span>`,
  )}<span class="muted">now</span></div>`;
}
