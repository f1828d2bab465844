import { freePort, XtimerProcess } from './processes.js';
import type { Sink } from './sink.js';
import { eventually } from './stores.js';

/**
 * Several xtimer processes over the same stores, each with its own API port, that a
 * test can kill, stop and restart by index.
 */
export class Cluster {
  readonly procs: XtimerProcess[] = [];
  private readonly ports: number[] = [];
  private restarts = 0;

  constructor(
    private readonly env: Record<string, string>,
    readonly size: number,
  ) {}

  async start(): Promise<this> {
    for (let i = 0; i < this.size; i++) {
      this.ports.push(await freePort());
      this.procs.push(this.spawn(i));
    }
    try {
      await Promise.all(this.procs.map((p) => p.started()));
    } catch (err) {
      // The caller never gets the cluster to stop: none of its processes may outlive the test.
      await this.stopAll('SIGKILL');
      throw err;
    }
    return this;
  }

  private spawn(i: number): XtimerProcess {
    return new XtimerProcess(`p${i}.${this.restarts++}`, { ...this.env, PORT: String(this.ports[i]) });
  }

  /** The base URL of a running process's API. */
  api(): string {
    const i = this.procs.findIndex((p) => p.running);
    if (i < 0) throw new Error('no process is running');
    return `http://127.0.0.1:${this.ports[i]}`;
  }

  /** The base URL of process i's API. */
  apiOf(i: number): string {
    return `http://127.0.0.1:${this.ports[i]}`;
  }

  async kill(i: number): Promise<void> {
    await this.procs[i]!.stop('SIGKILL');
  }

  async restart(i: number): Promise<void> {
    if (this.procs[i]!.running) await this.kill(i);
    this.procs[i] = this.spawn(i);
    await this.procs[i]!.started();
  }

  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await Promise.all(this.procs.map((p) => p.stop(signal)));
  }

  async startAll(): Promise<void> {
    for (let i = 0; i < this.size; i++) if (!this.procs[i]!.running) this.procs[i] = this.spawn(i);
    await Promise.all(this.procs.map((p) => p.started()));
  }

  output(): string {
    return this.procs.map((p) => p.output).join('\n');
  }
}

/** A call to the API as an SDK makes it (every change says content-type: application/json); throws on 4xx/5xx. */
export async function apiCall(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Creates `count` active timers with the given fields; returns their ids. */
export async function createTimers(
  base: string,
  count: number,
  fields: Record<string, unknown>,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const timer = await apiCall(base, 'POST', '/api/v1/timers', {
      app: 'cluster',
      name: `t-${i}-${Math.random().toString(36).slice(2, 8)}`,
      cron: '* * * * * *',
      status: 'active',
      ...fields,
    });
    ids.push(timer.id);
  }
  return ids;
}

export interface DeliveryReport {
  expected: number;
  delivered: number;
  missing: string[];
  /** Task ids delivered more than once. */
  duplicates: string[];
  /** Duplicates none of whose repeat deliveries carries attempt >= 2 (must be none). */
  unexplainedDuplicates: string[];
}

/** Compares the runs every-second `timerIds` owed in [from, to) with what `sink` received. */
export function deliveryReport(
  sink: Pick<Sink, 'deliveries'>,
  timerIds: number[],
  from: number,
  to: number,
  stepMs = 1000,
): DeliveryReport {
  const byTask = new Map<string, number[]>();
  for (const d of sink.deliveries) {
    const attempts = byTask.get(d.taskId) ?? [];
    attempts.push(d.attempt);
    byTask.set(d.taskId, attempts);
  }
  const report: DeliveryReport = {
    expected: 0,
    delivered: 0,
    missing: [],
    duplicates: [],
    unexplainedDuplicates: [],
  };
  for (const id of timerIds) {
    for (let t = from; t < to; t += stepMs) {
      const key = `${id}_${t}`;
      report.expected++;
      const attempts = byTask.get(key);
      if (!attempts) {
        report.missing.push(key);
        continue;
      }
      report.delivered++;
      if (attempts.length > 1) {
        report.duplicates.push(key);
        // The first delivery is attempt n; every repeat must be a later attempt.
        const sorted = [...attempts].sort((a, b) => a - b);
        if (sorted.some((a, i) => i > 0 && a <= sorted[i - 1]!)) report.unexplainedDuplicates.push(key);
      }
    }
  }
  return report;
}

/**
 * The delivery report once nothing is missing, or as it stands at `timeoutMs` (late runs
 * get that long to arrive; the test's assertions say what counts).
 */
export async function settledDeliveryReport(
  sink: Pick<Sink, 'deliveries'>,
  timerIds: number[],
  from: number,
  to: number,
  timeoutMs: number,
  everyMs = 50,
): Promise<DeliveryReport> {
  await eventually(
    () => deliveryReport(sink, timerIds, from, to).missing.length === 0,
    'every run delivered',
    timeoutMs,
    everyMs,
  ).catch(() => undefined);
  return deliveryReport(sink, timerIds, from, to);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run of a timer as the API shows it (null until it exists). */
export async function runOf(base: string, key: string): Promise<Record<string, any> | null> {
  const [timerId, runAt] = key.split('_').map(Number);
  const page = await apiCall(base, 'GET', `/api/v1/timers/${timerId}/tasks?from=${runAt}&to=${runAt! + 1}`);
  return page.items.find((t: { id: string }) => t.id === key) ?? null;
}

/** Waits until the run has a final status, and returns it. */
export async function settledRun(base: string, key: string, timeoutMs: number): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const run = await runOf(base, key);
      return run && run.status !== 'pending' && run.status !== 'running' && run;
    },
    `run ${key} settled`,
    timeoutMs,
    250,
  );
}
