import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * Lateness (callback sent − scheduled time) of recent runs as inline SVG: a
 * sparkline for the timers list and a histogram for a timer's page. No script, no
 * external assets: the page stays usable with JavaScript off.
 */

type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface LatenessSample {
  runAt: number;
  latencyMs: number;
}

export interface LatenessStats {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles; null without samples. */
export function latenessStats(values: readonly number[]): LatenessStats | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { count: sorted.length, p50: rank(0.5), p95: rank(0.95), p99: rank(0.99), max: sorted.at(-1)! };
}

/** Lateness bands, in ms: the upper edge of each histogram bin (the last is open). */
export const LATENESS_BINS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, Number.POSITIVE_INFINITY] as const;

export function binLabel(i: number): string {
  const edge = LATENESS_BINS[i]!;
  if (edge === Number.POSITIVE_INFINITY) return '>1s';
  return edge >= 1000 ? `≤${edge / 1000}s` : `≤${edge}`;
}

/** How many samples fall in each bin of LATENESS_BINS. */
export function histogram(values: readonly number[]): number[] {
  const counts = LATENESS_BINS.map(() => 0);
  for (const v of values) {
    const i = LATENESS_BINS.findIndex((edge) => v <= edge);
    counts[i === -1 ? counts.length - 1 : i]! += 1;
  }
  return counts;
}

/** Green on time, amber noticeably late, red late (the design's lateness targets are 10–250 ms). */
function tone(ms: number): string {
  if (ms <= 10) return 'var(--ok)';
  if (ms <= 250) return 'var(--warn)';
  return 'var(--bad)';
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * One bar per run, oldest left, on a log scale (a few slow runs would flatten a linear
 * one). Samples may come newest first, as the task list returns them.
 */
export function sparkline(samples: readonly LatenessSample[], width = 120, height = 28): Markup {
  if (samples.length === 0) return html`<span class="muted">no runs yet</span>`;
  const runs = [...samples].sort((a, b) => a.runAt - b.runAt);
  const top = Math.log10(1 + Math.max(10, ...runs.map((r) => r.latencyMs)));
  const step = width / runs.length;
  const bar = Math.max(1, step - 1);
  const bars = runs.map((r, i) => {
    const h = Math.max(1.5, (Math.log10(1 + Math.max(0, r.latencyMs)) / top) * (height - 2));
    return html`<rect x="${round1(i * step)}" y="${round1(height - h)}" width="${round1(bar)}" height="${round1(h)}" fill="${tone(r.latencyMs)}"><title>${new Date(r.runAt).toISOString()} · ${r.latencyMs} ms late</title></rect>`;
  });
  const stats = latenessStats(runs.map((r) => r.latencyMs))!;
  return html`<svg class="spark" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>lateness of the last ${stats.count} runs: p50 ${stats.p50} ms, max ${stats.max} ms</title>${bars}</svg>`;
}

/** Counts per lateness band, labelled, for a timer's page. */
export function latenessHistogram(values: readonly number[], width = 460, height = 140): Markup {
  if (values.length === 0) return html`<p class="muted">No fired runs yet.</p>`;
  const counts = histogram(values);
  const most = Math.max(...counts);
  const labelH = 16;
  const countH = 14;
  const plotH = height - labelH - countH;
  const slot = width / counts.length;
  const bars = counts.map((n, i) => {
    const h = n === 0 ? 0 : Math.max(2, (n / most) * plotH);
    const x = i * slot;
    const fill = tone((LATENESS_BINS[i - 1] ?? 0) + 0.5);
    const label = binLabel(i);
    const title = `${label}${label.endsWith('s') ? '' : ' ms'}: ${n} run${n === 1 ? '' : 's'}`;
    return html`<g>${
      n > 0
        ? html`<rect x="${round1(x + 3)}" y="${round1(countH + plotH - h)}" width="${round1(slot - 6)}" height="${round1(h)}" fill="${fill}"><title>${title}</title></rect><text x="${round1(x + slot / 2)}" y="${round1(countH + plotH - h - 3)}" text-anchor="middle" class="count">${n}</text>`
        : ''
    }<text x="${round1(x + slot / 2)}" y="${height - 3}" text-anchor="middle">${binLabel(i)}</text></g>`;
  });
  return html`<svg class="histogram" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>lateness histogram of ${values.length} runs (ms)</title><line x1="0" x2="${width}" y1="${countH + plotH + 0.5}" y2="${countH + plotH + 0.5}" class="axis"/>${bars}</svg>`;
}
