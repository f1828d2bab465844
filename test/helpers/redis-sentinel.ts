import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './processes.js';
import { eventually } from './stores.js';

const execFileAsync = promisify(execFile);
const INSTALL = 'apt-get install -y redis-server (redis-server 7, which also runs Sentinel)';
/** A master silent this long is subjectively down for a Sentinel (the failover follows). */
const DOWN_AFTER_MS = 1000;
const FAILOVER_TIMEOUT_MS = 5000;
const QUORUM = 2;

interface Server {
  port: number;
  proc: ChildProcess;
}

/** Passwords: the master's and replicas' (`requirepass`), and the Sentinels' own. */
export interface SentinelAuth {
  password?: string;
  sentinelPassword?: string;
}

/**
 * A throwaway Redis master, its replicas (`--replicaof`) and Sentinels watching them
 * (`redis-server <conf> --sentinel`, each with its own config file, which Sentinel
 * rewrites), on free local ports, torn down with their files by `stop`. With `auth`,
 * every server requires its password and the Sentinels theirs (they authenticate to the
 * servers and to each other with them).
 */
export class RedisSentinelFixture {
  private readonly redis: Server[] = [];
  private readonly sentinels: Server[] = [];
  private dir = '';

  constructor(
    readonly masterName: string,
    readonly replicas = 1,
    readonly sentinelCount = 3,
    readonly auth: SentinelAuth = {},
  ) {}

  /** REDIS_URL for xtimer: the master's password, every Sentinel, the master's name, the Sentinels' password. */
  get url(): string {
    const { password, sentinelPassword } = this.auth;
    const user = password ? `:${encodeURIComponent(password)}@` : '';
    const query = sentinelPassword ? `?sentinelPassword=${encodeURIComponent(sentinelPassword)}` : '';
    return `redis+sentinel://${user}${this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${this.masterName}${query}`;
  }

  async start(): Promise<this> {
    await execFileAsync('redis-server', ['--version']).catch(() => {
      throw new Error(`redis-server is missing: ${INSTALL}`);
    });
    this.dir = await mkdtemp(join(tmpdir(), 'xt-redis-sentinel-'));
    try {
      const masterPort = await freePort();
      this.redis.push({ port: masterPort, proc: this.spawnRedis(masterPort) });
      for (let i = 0; i < this.replicas; i++) {
        const port = await freePort();
        this.redis.push({
          port,
          proc: this.spawnRedis(port, ['--replicaof', '127.0.0.1', String(masterPort)]),
        });
      }
      const { password, sentinelPassword } = this.auth;
      await waitFor(masterPort, password, (r) => r.ping(), 'PONG');
      for (const replica of this.redis.slice(1))
        await waitFor(replica.port, password, (r) => r.info('replication'), 'master_link_status:up');
      for (let i = 0; i < this.sentinelCount; i++) {
        const port = await freePort();
        this.sentinels.push({ port, proc: await this.spawnSentinel(port, masterPort) });
      }
      // A failover needs a majority of the Sentinels to agree: each must know the others
      // (they find each other through the master within a few seconds) and the replicas.
      for (const s of this.sentinels)
        await waitFor(
          s.port,
          sentinelPassword,
          async (r) => {
            const fields = (await r.call('SENTINEL', 'MASTER', this.masterName)) as string[];
            const field = (k: string) => Number(fields[fields.indexOf(k) + 1]);
            return field('num-other-sentinels') === this.sentinelCount - 1 &&
              field('num-slaves') === this.replicas
              ? 'known'
              : '';
          },
          'known',
        );
    } catch (err) {
      await this.stop();
      throw err;
    }
    return this;
  }

  /** The port of the master the Sentinels name now. */
  async masterPort(): Promise<number> {
    return this.withAnySentinel(async (r) => {
      const addr = (await r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName)) as [string, string];
      return Number(addr[1]);
    });
  }

  /** Kills the Redis server on `port` (SIGKILL: no goodbye to replicas or Sentinels). */
  kill(port: number): void {
    this.redis.find((s) => s.port === port)?.proc.kill('SIGKILL');
  }

  /** Asks a Sentinel to fail over now: the master, still running, is demoted to a replica. */
  async failOver(): Promise<void> {
    await this.withAnySentinel((r) => r.call('SENTINEL', 'FAILOVER', this.masterName));
  }

  /** Waits until every Sentinel names another master than `port` and that one says it is a master. */
  async failedOver(port: number, timeoutMs = 30_000): Promise<number> {
    return eventually(
      async () => {
        const named = new Set<number>();
        for (const s of this.sentinels) {
          const r = probe(s.port, this.auth.sentinelPassword);
          try {
            const addr = (await r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName)) as [
              string,
              string,
            ];
            named.add(Number(addr[1]));
          } finally {
            r.disconnect();
          }
        }
        const [promoted] = named;
        if (named.size !== 1 || promoted === undefined || promoted === port) return 0;
        const r = probe(promoted, this.auth.password);
        try {
          return (await r.info('replication')).includes('role:master') ? promoted : 0;
        } finally {
          r.disconnect();
        }
      },
      `the Sentinels promoting a replica of 127.0.0.1:${port}`,
      timeoutMs,
      100,
    );
  }

  async stop(): Promise<void> {
    const all = [...this.redis, ...this.sentinels];
    for (const s of all) s.proc.kill('SIGKILL');
    await Promise.all(all.map((s) => (running(s.proc) ? new Promise((r) => s.proc.once('exit', r)) : null)));
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  private spawnRedis(port: number, extra: string[] = []): ChildProcess {
    // biome-ignore format: one flag and its value a line
    return spawn('redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', this.dir,
      '--dbfilename', `dump-${port}.rdb`,
      '--save', '',
      '--appendonly', 'no',
      '--logfile', join(this.dir, `${port}.log`),
      ...(this.auth.password ? ['--requirepass', this.auth.password, '--masterauth', this.auth.password] : []),
      ...extra,
    ], { stdio: 'ignore' });
  }

  private async spawnSentinel(port: number, masterPort: number): Promise<ChildProcess> {
    const conf = join(this.dir, `sentinel-${port}.conf`);
    const name = this.masterName;
    await writeFile(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${this.dir}`,
        `logfile ${join(this.dir, `sentinel-${port}.log`)}`,
        `sentinel monitor ${name} 127.0.0.1 ${masterPort} ${QUORUM}`,
        `sentinel down-after-milliseconds ${name} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${name} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${name} 1`,
        ...(this.auth.password ? [`sentinel auth-pass ${name} ${this.auth.password}`] : []),
        // Sentinels ask each other (is the master down? who leads the failover?) with this.
        ...(this.auth.sentinelPassword
          ? [
              `requirepass ${this.auth.sentinelPassword}`,
              `sentinel sentinel-pass ${this.auth.sentinelPassword}`,
            ]
          : []),
        '',
      ].join('\n'),
    );
    return spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  }

  private async withAnySentinel<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const s of this.sentinels) {
      if (!running(s.proc)) continue;
      const r = probe(s.port, this.auth.sentinelPassword);
      try {
        return await fn(r);
      } catch (err) {
        last = err;
      } finally {
        r.disconnect();
      }
    }
    throw last ?? new Error('no Sentinel is running');
  }
}

/** A connection that fails at once rather than retrying: the callers poll. */
function probe(port: number, password: string | undefined): Redis {
  const redis = new Redis(port, '127.0.0.1', {
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    ...(password ? { password } : {}),
  });
  redis.on('error', () => undefined);
  return redis;
}

async function waitFor(
  port: number,
  password: string | undefined,
  ask: (r: Redis) => Promise<string>,
  answer: string,
): Promise<void> {
  const redis = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    ...(password ? { password } : {}),
    maxRetriesPerRequest: 1,
    retryStrategy: () => 100,
  });
  redis.on('error', () => undefined);
  try {
    await eventually(
      async () => String(await ask(redis).catch(() => '')).includes(answer),
      `redis on ${port} answering ${answer}`,
      20_000,
    );
  } finally {
    redis.disconnect();
  }
}

function running(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}
