import { afterAll, beforeAll } from 'vitest';
import { freePort, XtimerProcess } from './processes.js';
import { type Responder, Sink } from './sink.js';
import { createTestStores, eventually, type TestStores } from './stores.js';

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

/** What useCluster starts besides the stores and the sink. */
export interface ClusterSetup {
  /** Processes with every role over the same stores (1 unless said). */
  size?: number;
  /** Settings the stores are made with (createTestStores), which every process gets too. */
  storeEnv?: Record<string, string>;
  /**
   * Settings of the processes only, over the stores' and LOG_LEVEL=info. A function is
   * called once the stores exist (for what is built on them, such as a proxy to MySQL).
   */
  env?:
    | Record<string, string>
    | ((stores: TestStores) => Record<string, string> | Promise<Record<string, string>>);
  /** How the sink answers from the start (else 200 "ok"). */
  respond?: Responder;
}

/** What useCluster gives a test: usable from its first test on (its beforeAll has run). */
export interface ClusterUnderTest {
  /** The file's own database and Redis key prefix. */
  readonly stores: TestStores;
  /** The callback receiver the timers call. */
  readonly sink: Sink;
  readonly cluster: Cluster;
  /** The first process, the only one of a one-process test. */
  readonly proc: XtimerProcess;
  /** The API of the first process. */
  readonly base: string;
}

/**
 * The e2e setup most files share: before the first test, its own database and key prefix
 * (`label` names them), a sink and `size` xtimer processes started from source and ready;
 * after the last, the processes killed, the sink stopped and the stores dropped. Call it
 * at the top of a file or of a describe block; hooks the file adds after it run after its
 * start and before its teardown.
 */
export function useCluster(label: string, setup: ClusterSetup = {}): ClusterUnderTest {
  let stores: TestStores | undefined;
  let sink: Sink | undefined;
  let cluster: Cluster | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`useCluster('${label}'): no ${what} yet (its beforeAll has not run)`);
    return value;
  };
  beforeAll(async () => {
    stores = await createTestStores(label, setup.storeEnv);
    sink = await new Sink().start();
    if (setup.respond) sink.respond = setup.respond;
    const env = typeof setup.env === 'function' ? await setup.env(stores) : setup.env;
    cluster = await new Cluster({ ...stores.env, LOG_LEVEL: 'info', ...env }, setup.size ?? 1).start();
  });
  afterAll(async () => {
    await cluster?.stopAll('SIGKILL');
    await sink?.stop();
    await stores?.cleanup();
  });
  return {
    get stores() {
      return ready(stores, 'stores');
    },
    get sink() {
      return ready(sink, 'sink');
    },
    get cluster() {
      return ready(cluster, 'cluster');
    },
    get proc() {
      return ready(cluster, 'cluster').procs[0]!;
    },
    get base() {
      return ready(cluster, 'cluster').apiOf(0);
    },
  };
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
