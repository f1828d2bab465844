import { describe, expect, it } from 'vitest';
import {
  binLabel,
  histogram,
  LATENESS_BINS,
  latenessHistogram,
  latenessStats,
  sparkline,
} from '../../../../dashboard/views/lateness-chart.js';

describe('latenessStats', () => {
  it('gives nearest-rank percentiles and the maximum', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latenessStats(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
  });

  it('is null without samples', () => {
    expect(latenessStats([])).toBeNull();
  });
});

describe('histogram', () => {
  it('puts each lateness in the first band whose upper edge holds it', () => {
    const counts = histogram([0, 1, 2, 3, 10, 11, 999, 1000, 1001, 60_000]);
    expect(counts).toHaveLength(LATENESS_BINS.length);
    expect(counts[0]).toBe(2); // 0, 1
    expect(counts[1]).toBe(1); // 2
    expect(counts[2]).toBe(1); // 3
    expect(counts[3]).toBe(1); // 10
    expect(counts[4]).toBe(1); // 11
    expect(counts[9]).toBe(2); // 999, 1000
    expect(counts[10]).toBe(2); // over a second
  });

  it('labels the bands in ms, the last one open', () => {
    expect(binLabel(0)).toBe('≤1');
    expect(binLabel(9)).toBe('≤1s');
    expect(binLabel(10)).toBe('>1s');
  });
});

describe('SVG', () => {
  it('draws one bar per run, oldest first, and says so when there is none', async () => {
    const svg = String(
      await sparkline([
        { runAt: 2000, latencyMs: 500 },
        { runAt: 1000, latencyMs: 3 },
      ]),
    );
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg.indexOf('3 ms late')).toBeLessThan(svg.indexOf('500 ms late'));
    expect(String(await sparkline([]))).toContain('no runs yet');
  });

  it('draws a bar with its count for each non-empty band', async () => {
    const svg = String(await latenessHistogram([1, 1, 30]));
    expect(svg).toContain('≤1 ms: 2 runs');
    expect(svg).toContain('≤50 ms: 1 run<');
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('&gt;1s'); // the open band's label, escaped
  });
});
