import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';

/** One registry's figures as prom-client hands them between threads. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * Prometheus metrics of one process, served at /metrics. Names are `xtimer_*`; labels
 * take a few fixed values only (outcome, stage, queue, state), never ids or apps.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly lateness = new Histogram({
    name: 'xtimer_fire_lateness_seconds',
    help: 'Time from a run’s scheduled instant to the moment its first call was sent.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly callbackDuration = new Histogram({
    name: 'xtimer_callback_duration_seconds',
    help: 'Duration of callback requests, until the response was read.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly runs = new Counter({
    name: 'xtimer_runs_total',
    help: 'Runs settled, by outcome (succeeded, failed, skipped, missed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly duplicates = new Counter({
    name: 'xtimer_duplicates_suppressed_total',
    help: 'Copies of runs not called because the run was already taken or done, by where it was caught.',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly notifications = new Counter({
    name: 'xtimer_notifications_total',
    help: 'Failure notifications, by result: sent, or failed (given up after every try).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly retries = new Counter({
    name: 'xtimer_retries_total',
    help: 'Callback attempts after the first.',
    registers: [this.registry],
  });

  readonly sliceLag = new Histogram({
    name: 'xtimer_slice_lag_seconds',
    help: 'How late a trigger started walking a slice, after the moment its first window had to be read.',
    buckets: [0, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly slices = new Counter({
    name: 'xtimer_slices_total',
    help: 'Slices walked to the end, by whether their lock was acked.',
    labelNames: ['acked'] as const,
    registers: [this.registry],
  });

  readonly waitingRuns = new Gauge({
    name: 'xtimer_executor_waiting_runs',
    help: 'Runs prepared and waiting on this process’s timing wheel for their due millisecond.',
    registers: [this.registry],
  });

  readonly appSlotWaits = new Gauge({
    name: 'xtimer_executor_app_slot_waiting_runs',
    help: 'Runs due and waiting in this process because their app has APP_MAX_IN_FLIGHT calls in flight.',
    registers: [this.registry],
  });

  readonly oldestDueAge = new Gauge({
    name: 'xtimer_oldest_due_run_age_seconds',
    help: 'How overdue the oldest run is that is due and not yet sent: claimed by this executor, or (api processes) waiting in the execute queue.',
    labelNames: ['where'] as const,
    registers: [this.registry],
  });

  readonly threadSilence = new Gauge({
    name: 'xtimer_thread_silent_seconds',
    help: 'Seconds since a thread of this process last beat (the roles thread beats every second); /healthz fails past 60.',
    labelNames: ['thread'] as const,
    registers: [this.registry],
  });

  readonly clockOffset = new Gauge({
    name: 'xtimer_clock_offset_seconds',
    help: 'How far Redis TIME is ahead of this process’s clock; runs are released by the corrected clock.',
    // Each thread measures it: the process's figure is theirs, not their sum.
    aggregator: 'average',
    registers: [this.registry],
  });

  readonly bufferedOutcomes = new Gauge({
    name: 'xtimer_outcomes_buffered',
    help: 'Run outcomes not yet written to MySQL.',
    registers: [this.registry],
  });

  readonly migrationRuns = new Counter({
    name: 'xtimer_migrator_runs_total',
    help: 'Runs materialised by the migrator.',
    registers: [this.registry],
  });

  readonly migrationProgress = new Gauge({
    name: 'xtimer_migrator_window_progress_runs',
    help: 'Runs materialised so far in the migration under way (0 when none is).',
    labelNames: ['phase'] as const,
    registers: [this.registry],
  });

  readonly migrationSeconds = new Histogram({
    name: 'xtimer_migration_duration_seconds',
    help: 'Duration of completed migrations.',
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });

  readonly compensated = new Counter({
    name: 'xtimer_compensated_runs_total',
    help: 'Runs the compensator acted on, by action (refired, recovered, missed, skipped, requeued, completed).',
    labelNames: ['action'] as const,
    registers: [this.registry],
  });

  readonly historyPartitions = new Counter({
    name: 'xtimer_history_partitions_total',
    help: 'Day partitions of the run history added ahead, and dropped past TASK_RETENTION_DAYS.',
    labelNames: ['action'] as const,
    registers: [this.registry],
  });

  readonly activeTimers = new Gauge({
    name: 'xtimer_active_timers',
    help: 'Timers with status active (read from MySQL when scraped, at most every 10 s).',
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'xtimer_queue_jobs',
    help: 'Jobs in the BullMQ queues by state (read when scraped).',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'xtimer_' });
    // Each labelled series exists from the start at 0: one born at its first increment
    // shows no increase() for it, and that first burst is the one the alerts are for.
    for (const outcome of ['succeeded', 'failed', 'skipped', 'missed']) this.runs.inc({ outcome }, 0);
    for (const stage of ['claim', 'history', 'fenced']) this.duplicates.inc({ stage }, 0);
    for (const result of ['sent', 'failed']) this.notifications.inc({ result }, 0);
    for (const acked of ['true', 'false']) this.slices.inc({ acked }, 0);
    for (const action of ['refired', 'recovered', 'missed', 'skipped', 'requeued', 'completed', 'unstashed'])
      this.compensated.inc({ action }, 0);
    for (const action of ['added', 'dropped']) this.historyPartitions.inc({ action }, 0);
  }

  /** Adds a collector run before every scrape (gauges read from Redis or MySQL). */
  onScrape(collect: () => Promise<void>): void {
    this.collectors.push(collect);
  }

  /**
   * Adds another thread's figures to every scrape (its roles' metrics, when the api has the
   * main thread to itself): counters and histograms are summed, gauges as each one says.
   */
  addSource(read: () => Promise<MetricsSnapshot>): void {
    this.sources.push(read);
  }

  /**
   * This registry's figures, its collectors run first: what a thread hands over, without
   * the process's own (CPU, memory, file descriptors), which the main thread reports once.
   */
  async snapshot({ processWide = true } = {}): Promise<MetricsSnapshot> {
    await this.collect();
    const all = (await this.registry.getMetricsAsJSON()) as MetricsSnapshot;
    return processWide ? all : all.filter((m) => !m.name.startsWith('xtimer_process_'));
  }

  async render(): Promise<{ contentType: string; body: string }> {
    if (this.sources.length === 0) {
      await this.collect();
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    }
    // A source that does not answer (its thread stalled, or stopping) gives its last counts:
    // left out, its counters would fall to this thread's and read as a reset. Its gauges are
    // left out, not served stale: a stalled thread's lag would read as before the stall.
    const read = this.sources.map(async (source, i) => {
      try {
        const figures = await source();
        this.lastCounts[i] = figures.filter((m) => String(m.type) !== 'gauge');
        return figures;
      } catch {
        return this.lastCounts[i] ?? [];
      }
    });
    const all = (await Promise.all([this.snapshot(), ...read])).map(worstLag);
    const merged = AggregatorRegistry.aggregate(all);
    // Figures no thread may sum (the process's start time) are this thread's to give.
    const own = all[0]!.filter((m) => m.aggregator === 'omit').map(exposition);
    return { contentType: merged.contentType, body: (await merged.metrics()) + own.join('') };
  }

  private async collect(): Promise<void> {
    await Promise.all(this.collectors.map((c) => c().catch(() => undefined)));
  }

  private readonly collectors: Array<() => Promise<void>> = [];
  private readonly sources: Array<() => Promise<MetricsSnapshot>> = [];
  private readonly lastCounts: MetricsSnapshot[] = [];
}

/**
 * The figures with the event loop's lag merged as the worst thread's, not their average:
 * a saturated roles thread beside an idle api thread would read half as late as it is.
 */
function worstLag(figures: MetricsSnapshot): MetricsSnapshot {
  return figures.map((m) =>
    m.name.startsWith('xtimer_nodejs_eventloop_lag') && m.aggregator === 'average'
      ? { ...m, aggregator: 'max' }
      : m,
  );
}

/** One metric in the text exposition format. */
function exposition(m: MetricsSnapshot[number]): string {
  const escaped = (v: unknown) => String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  const lines = m.values.map((v) => {
    const labels = Object.entries(v.labels ?? {}).map(([k, l]) => `${k}="${escaped(l)}"`);
    return `${m.name}${labels.length > 0 ? `{${labels.join(',')}}` : ''} ${v.value}`;
  });
  return `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n${lines.join('\n')}\n`;
}
