import { describe, expect, it } from 'vitest';
import { Metrics, type MetricsSnapshot } from '../../../src/observability/metrics.js';

/** One process's /metrics when its roles run in a thread beside the api's. */
describe('Metrics with another thread as a source', () => {
  it("adds the thread's counters and histograms to this thread's, and reports the process's own figures once", async () => {
    const api = new Metrics();
    const roles = new Metrics();
    api.runs.inc({ outcome: 'succeeded' }, 2);
    roles.runs.inc({ outcome: 'succeeded' }, 5);
    roles.lateness.observe(0.02);
    api.clockOffset.set(0.004);
    roles.clockOffset.set(0.006);
    api.addSource(() => roles.snapshot({ processWide: false }));

    const { body } = await api.render();
    const value = (line: string) =>
      Number(
        body
          .split('\n')
          .find((l) => l.startsWith(`${line} `))
          ?.split(' ')[1],
      );
    expect(value('xtimer_runs_total{outcome="succeeded"}')).toBe(7);
    expect(value('xtimer_fire_lateness_seconds_count')).toBe(1);
    // Both threads measure the same clock: the figure is theirs, not their sum.
    expect(value('xtimer_clock_offset_seconds')).toBeCloseTo(0.005);
    // Process-wide figures come from this thread alone, each once.
    for (const name of ['xtimer_process_cpu_seconds_total', 'xtimer_process_start_time_seconds']) {
      expect(body.split('\n').filter((l) => l.startsWith(`${name} `))).toHaveLength(1);
    }
    const used = process.cpuUsage();
    const cpu = value('xtimer_process_cpu_seconds_total');
    expect(cpu).toBeGreaterThan(0);
    expect(cpu).toBeLessThanOrEqual((used.user + used.system) / 1e6);
  });

  it('serves its own figures when the thread does not answer', async () => {
    const api = new Metrics();
    api.runs.inc({ outcome: 'failed' });
    api.addSource(() => Promise.reject(new Error('no answer in 5000 ms')));
    const { body } = await api.render();
    expect(body).toContain('xtimer_runs_total{outcome="failed"} 1');
  });

  it('keeps the thread’s last figures while it does not answer, so its counters never seem reset', async () => {
    const api = new Metrics();
    const roles = new Metrics();
    roles.runs.inc({ outcome: 'succeeded' }, 5);
    roles.waitingRuns.set(7);
    let stalled = false;
    api.addSource(() =>
      stalled ? Promise.reject(new Error('no answer in 5000 ms')) : roles.snapshot({ processWide: false }),
    );
    expect((await api.render()).body).toContain('xtimer_runs_total{outcome="succeeded"} 5');
    stalled = true;
    const { body } = await api.render();
    expect(body).toContain('xtimer_runs_total{outcome="succeeded"} 5');
    // Its gauges are not served as they were before it stalled.
    expect(body).toContain('xtimer_executor_waiting_runs 0');
  });

  it('reports the event loop’s lag as the worse thread’s', async () => {
    const api = new Metrics();
    const lag = (value: number) =>
      ({
        name: 'xtimer_nodejs_eventloop_lag_p99_seconds',
        help: 'lag',
        type: 'gauge',
        aggregator: 'average',
        values: [{ value, labels: {} }],
      }) as unknown as MetricsSnapshot[number];
    // A saturated thread beside idle ones.
    api.addSource(async () => [lag(0.9)]);
    api.addSource(async () => [lag(0.001)]);
    const { body } = await api.render();
    expect(body).toMatch(/\nxtimer_nodejs_eventloop_lag_p99_seconds 0\.9\n/);
  });
});

describe('Metrics of a process just started', () => {
  it('has every labelled series of its alerts at 0, so their first increment shows as one', async () => {
    const { body } = await new Metrics().render();
    for (const series of [
      'xtimer_runs_total{outcome="missed"} 0',
      'xtimer_slices_total{acked="false"} 0',
      'xtimer_compensated_runs_total{action="requeued"} 0',
      'xtimer_notifications_total{result="failed"} 0',
      'xtimer_duplicates_suppressed_total{stage="fenced"} 0',
    ])
      expect(body).toContain(series);
  });
});
