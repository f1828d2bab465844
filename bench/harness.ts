/** Processes, CPU accounting and store probes for the benchmark. */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const MYSQL_SERVER = process.env.BENCH_MYSQL_SERVER ?? 'mysql://root@127.0.0.1:3306';
/** The bench's sinks listen on 127.0.0.1: let xtimer call them past the SSRF guard (on by default). */
export const LOCAL_SINK_ENV = { CALLBACK_ALLOW_HOSTS: '127.0.0.1' } as const;
const CLK_TCK = Number(execSync('getconf CLK_TCK').toString().trim()) || 100;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const running = new Set<ChildProcess>();
// Never leave a child behind, whatever way the benchmark ends.
process.on('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** A child process running a TypeScript entry through node's tsx loader. */
export class Child {
  readonly proc: ChildProcess;
  output = '';
  private readonly profiled: boolean;

  constructor(
    readonly name: string,
    script: string,
    args: string[] = [],
    env: Record<string, string> = {},
  ) {
    // The young generation npm start gives the service (package.json), for every child.
    // BENCH_CPU_PROF_DIR=<dir> writes each child's CPU profile there when it stops,
    // BENCH_HEAP_PROF_DIR=<dir> its sampled allocations still alive then, and
    // BENCH_ALLOC_PROF_DIR=<dir> every allocation sampled over a window, freed ones too
    // (what the collector is busy with), or with BENCH_ALLOC_PROF_LIVE=1 only what is still
    // alive at its end (what it copies): bench/allocation-sampler.mjs.
    const profDir = process.env.BENCH_CPU_PROF_DIR;
    const heapDir = process.env.BENCH_HEAP_PROF_DIR;
    const allocDir = process.env.BENCH_ALLOC_PROF_DIR;
    const profile = [
      ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []),
      ...(heapDir ? ['--heap-prof', `--heap-prof-dir=${heapDir}`] : []),
    ];
    this.profiled = profile.length > 0;
    if (allocDir) mkdirSync(allocDir, { recursive: true });
    const sampler = allocDir ? ['--import', join(ROOT, 'bench', 'allocation-sampler.mjs')] : [];
    this.proc = spawn(
      process.execPath,
      [...profile, '--max-semi-space-size=128', '--import', 'tsx', ...sampler, script, ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // BENCH_LOG_DIR=<dir> keeps each child's whole output there, for a run that went wrong.
    const logDir = process.env.BENCH_LOG_DIR;
    if (logDir) mkdirSync(logDir, { recursive: true });
    const logFile = logDir ? join(logDir, `${name}-${this.proc.pid}.log`) : null;
    const keep = (c: Buffer) => {
      this.output = (this.output + c.toString()).slice(-200_000);
      if (logFile) appendFileSync(logFile, c);
    };
    this.proc.stdout?.on('data', keep);
    this.proc.stderr?.on('data', keep);
    running.add(this.proc);
    this.proc.on('exit', () => running.delete(this.proc));
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  async waitFor(text: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes(text)) {
      if (this.proc.exitCode !== null) throw new Error(`${this.name} exited:\n${this.output.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name}: no "${text}" in ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    // A profiled child writes its profile as it exits, which SIGKILL prevents: a second
    // signal makes it give up its shutdown and exit.
    if (this.proc.exitCode === null && this.profiled) {
      this.proc.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
    }
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** CPU use of named processes between start() and stop(), as % of one core. */
export class CpuMeter {
  private readonly before = new Map<string, number>();
  private startedAt = 0;

  constructor(private readonly pids: Record<string, number>) {}

  start(): void {
    this.startedAt = Date.now();
    for (const [name, pid] of Object.entries(this.pids)) this.before.set(name, cpuSeconds(pid));
  }

  stop(): Record<string, number> {
    const seconds = (Date.now() - this.startedAt) / 1000;
    const out: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids)) {
      out[name] = Math.round(((cpuSeconds(pid) - this.before.get(name)!) / seconds) * 100);
    }
    return out;
  }
}

/** A CpuMeter over these processes and the stores beside them (Redis, MariaDB). */
export async function cpuMeterWithStores(pids: Record<string, number>): Promise<CpuMeter> {
  const redis = await redisInfo();
  return new CpuMeter({ ...pids, redis: redis.pid, mysql: pidOf('mariadbd') || pidOf('mysqld') });
}

export function pidOf(name: string): number {
  try {
    return Number(execSync(`pidof -s ${name}`).toString().trim());
  } catch {
    return 0;
  }
}

export async function redisInfo(): Promise<{ pid: number; hz: number; version: string; usedMemory: number }> {
  const r = new Redis(REDIS_URL);
  try {
    const server = await r.info('server');
    const memory = await r.info('memory');
    const hz = (await r.config('GET', 'hz')) as string[];
    const field = (text: string, key: string) =>
      new RegExp(`^${key}:(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
    return {
      pid: Number(field(server, 'process_id')),
      version: field(server, 'redis_version'),
      hz: Number(hz[1]),
      usedMemory: Number(field(memory, 'used_memory')),
    };
  } finally {
    r.disconnect();
  }
}

/** The server's version and InnoDB buffer pool: lines whose runs outgrow the pool read from disk. */
export async function mysqlInfo(): Promise<{ version: string; bufferPoolMiB: number }> {
  const conn = await mysql.createConnection(MYSQL_SERVER);
  try {
    const [rows] = await conn.query('SELECT VERSION() AS v, @@innodb_buffer_pool_size AS pool');
    const row = (rows as Array<{ v: string; pool: number | string }>)[0];
    return { version: String(row?.v), bufferPoolMiB: Math.round(Number(row?.pool) / 2 ** 20) };
  } finally {
    await conn.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  const conn = await mysql.createConnection(MYSQL_SERVER);
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await conn.end();
  }
}

/** What MySQL recorded for a set of runs: how many in each status, and how many were called more than once. */
export interface TaskOutcomes {
  byStatus: Record<string, number>;
  retried: number;
}

/** The runs scheduled in [from, to) of the timers with ids in [minId, maxId]. */
export async function taskOutcomes(
  database: string,
  from: number,
  to: number,
  minId: number,
  maxId: number,
): Promise<TaskOutcomes> {
  const conn = await mysql.createConnection(`${MYSQL_SERVER}/${database}`);
  // run_at holds UTC (the service's pool runs with timezone 'Z').
  const utc = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
  try {
    const [rows] = await conn.query(
      `SELECT status, COUNT(*) AS n, SUM(attempts > 1) AS retried FROM tasks
       WHERE run_at >= ? AND run_at < ? AND timer_id BETWEEN ? AND ? GROUP BY status`,
      [utc(from), utc(to), minId, maxId],
    );
    const out: TaskOutcomes = { byStatus: {}, retried: 0 };
    for (const r of rows as Array<{ status: string; n: number; retried: number }>) {
      out.byStatus[r.status] = Number(r.n);
      out.retried += Number(r.retried);
    }
    return out;
  } finally {
    await conn.end();
  }
}

/** Polls `probe` until none of its runs is pending or running any more, or `withinMs` passes. */
export async function settledOutcomes(
  probe: () => Promise<TaskOutcomes>,
  withinMs: number,
): Promise<TaskOutcomes> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const o = await probe();
    if ((o.byStatus.pending ?? 0) + (o.byStatus.running ?? 0) === 0 || Date.now() > deadline) return o;
    await sleep(2000);
  }
}

/** Deletes every key matching the patterns (SCAN + UNLINK). */
export async function deleteKeys(patterns: string[]): Promise<void> {
  const r = new Redis(REDIS_URL);
  try {
    await scanKeys(r, patterns, async (keys) => {
      await r.unlink(...keys);
    });
  } finally {
    r.disconnect();
  }
}

/** Hands each SCAN batch of keys matching the patterns to `each`. */
async function scanKeys(
  r: Redis,
  patterns: string[],
  each: (keys: string[]) => Promise<void>,
): Promise<void> {
  for (const match of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', match, 'COUNT', 5000);
      cursor = next;
      if (keys.length > 0) await each(keys);
    } while (cursor !== '0');
  }
}

export interface KeyBytes {
  total: number;
  /** MEMORY USAGE by kind: the key's first segment after the prefix (slice, timer, claim…), `queues` for BullMQ's. */
  byKind: Record<string, number>;
  /** Keys by kind. */
  keysByKind: Record<string, number>;
  /** Of the slices, those of minutes already past (walked) and those still ahead. */
  slices: { pastBytes: number; pastKeys: number; aheadBytes: number; aheadKeys: number };
  /** Slices past Redis's compact encoding (a skiplist, ~130 B a run instead of ~35), and their runs. */
  skiplists: { keys: number; runs: number };
  /** BullMQ's bytes by queue (`execute`, `trigger`…): mostly the jobs it keeps. */
  byQueue: Record<string, number>;
}

/**
 * The bytes Redis holds for the keys matching the patterns (MEMORY USAGE, every element
 * counted), by kind: the box's Redis is shared, so its used_memory also moves with
 * others' keys.
 */
export async function keyBytes(prefix: string, patterns: string[], now = Date.now()): Promise<KeyBytes> {
  const r = new Redis(REDIS_URL);
  const out: KeyBytes = {
    total: 0,
    byKind: {},
    keysByKind: {},
    slices: { pastBytes: 0, pastKeys: 0, aheadBytes: 0, aheadKeys: 0 },
    skiplists: { keys: 0, runs: 0 },
    byQueue: {},
  };
  const thisMinute = Math.floor(now / 60_000) * 60_000;
  try {
    await scanKeys(r, patterns, async (keys) => {
      const pipe = r.pipeline();
      for (const k of keys) pipe.memory('USAGE', k, 'SAMPLES', 0);
      const sizes = (await pipe.exec()) ?? [];
      const slices = keys.filter((k) => k.startsWith(`${prefix}slice:`));
      const looks = r.pipeline();
      for (const k of slices) looks.object('ENCODING', k).zcard(k);
      const replies = (await looks.exec()) ?? [];
      slices.forEach((_, i) => {
        if (replies[2 * i]?.[1] !== 'skiplist') return;
        out.skiplists.keys++;
        out.skiplists.runs += Number(replies[2 * i + 1]?.[1] ?? 0);
      });
      keys.forEach((k, i) => {
        const n = Number(sizes[i]?.[1] ?? 0);
        const rest = k.startsWith(prefix) ? k.slice(prefix.length) : 'queues';
        const kind = rest.split(':')[0] ?? rest;
        out.byKind[kind] = (out.byKind[kind] ?? 0) + n;
        if (kind === 'queues') {
          // {tag}:<queue>:<job id or structure>
          const queue = k.slice(k.indexOf('}:') + 2).split(':')[0] ?? '?';
          out.byQueue[queue] = (out.byQueue[queue] ?? 0) + n;
        }
        out.keysByKind[kind] = (out.keysByKind[kind] ?? 0) + 1;
        out.total += n;
        if (kind === 'slice') {
          // slice:YYYY-MM-DDTHH:mm_bucket
          const minute = Date.parse(`${rest.slice('slice:'.length, 'slice:'.length + 16)}:00.000Z`);
          if (minute < thisMinute) {
            out.slices.pastBytes += n;
            out.slices.pastKeys++;
          } else {
            out.slices.aheadBytes += n;
            out.slices.aheadKeys++;
          }
        }
      });
    });
  } finally {
    r.disconnect();
  }
  return out;
}

/** Members across every slice ZSET under `prefix` (the runs waiting in Redis). */
export async function pendingSliceRuns(prefix: string): Promise<number> {
  const r = new Redis(REDIS_URL);
  let total = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}slice:*`, 'COUNT', 5000);
      cursor = next;
      if (keys.length > 0) {
        const pipe = r.pipeline();
        for (const k of keys) pipe.zcard(k);
        for (const [, n] of (await pipe.exec()) ?? []) total += Number(n);
      }
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return total;
}

export interface SinkStats {
  delivered: number;
  duplicates: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
}

/** The benchmark's sink (bench/sink.ts), running in its own process. */
export interface SinkRef {
  port: number;
  pid: number;
}

export async function sinkStats(
  sinkPort: number,
  from: number,
  to: number,
  timers: { min: number; max: number } = { min: 0, max: Number.MAX_SAFE_INTEGER },
): Promise<SinkStats> {
  const res = await fetch(
    `http://127.0.0.1:${sinkPort}/_stats?from=${from}&to=${to}&minTimer=${timers.min}&maxTimer=${timers.max}`,
  );
  return (await res.json()) as SinkStats;
}

/**
 * The sink's figures for the runs due in [from, to), once their arrivals have settled:
 * polled until all `expected` have arrived, or none has for `quietMs`, or `capMs` has
 * passed since `to`. So a run that comes late counts as late (in the percentiles), and
 * `expected - delivered` counts only runs that never came.
 */
export async function settledStats(
  sinkPort: number,
  from: number,
  to: number,
  expected: number,
  opts: { quietMs: number; capMs: number; timers?: { min: number; max: number } },
): Promise<SinkStats & { settledAfterMs: number }> {
  let s = await sinkStats(sinkPort, from, to, opts.timers);
  let lastGrowth = Date.now();
  while (s.delivered < expected && Date.now() - lastGrowth < opts.quietMs && Date.now() < to + opts.capMs) {
    await sleep(500);
    const next = await sinkStats(sinkPort, from, to, opts.timers);
    if (next.delivered > s.delivered) lastGrowth = Date.now();
    s = next;
  }
  return { ...s, settledAfterMs: Math.max(0, Date.now() - to) };
}

/**
 * The sink's settled figures, and how many of the runs not delivered xtimer recorded
 * `missed` or `skipped` (its misfire policy, past capacity): those are accounted for.
 * A run passed over until its threshold is recorded when it is reached, or by the sweep
 * or the compensator after it; the arrivals are counted again once all have settled.
 */
export async function accountedStats(
  sinkPort: number,
  database: string | null,
  from: number,
  to: number,
  expected: number,
  opts: { quietMs: number; capMs: number; recordedWithinMs: number },
): Promise<SinkStats & { settledAfterMs: number; missedByPolicy: number }> {
  const s = await settledStats(sinkPort, from, to, expected, opts);
  if (database === null || s.delivered >= expected) return { ...s, missedByPolicy: 0 };
  const o = await settledOutcomes(
    () => taskOutcomes(database, from, to, 0, Number.MAX_SAFE_INTEGER),
    opts.recordedWithinMs,
  );
  return {
    ...(await sinkStats(sinkPort, from, to)),
    settledAfterMs: s.settledAfterMs,
    missedByPolicy: (o.byStatus.missed ?? 0) + (o.byStatus.skipped ?? 0),
  };
}

export async function resetSink(sinkPort: number): Promise<void> {
  await fetch(`http://127.0.0.1:${sinkPort}/_reset`);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}
