import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, isFree } from './processes.js';
import { eventually } from './stores.js';

const execFileAsync = promisify(execFile);
const INSTALL = 'apt-get install -y redis-server (redis-server and redis-cli 7)';
/** A master that stops answering is failed over after this (the test waits for it). */
const NODE_TIMEOUT_MS = 2000;
/** Redis Cluster's bus port is the node's port + 10000. */
const BUS_OFFSET = 10_000;

interface Node {
  port: number;
  proc: ChildProcess;
}

/**
 * A throwaway Redis Cluster on free local ports (`redis-server --cluster-enabled yes`,
 * joined by `redis-cli --cluster create`), torn down with its files by `stop`. Without
 * redis-server or redis-cli the start fails and names the package to install.
 */
export class RedisClusterFixture {
  private readonly nodes: Node[] = [];
  private dir = '';

  constructor(
    readonly masters: number,
    readonly replicasPerMaster: number,
  ) {}

  /** REDIS_URL for xtimer: every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  }

  async start(): Promise<this> {
    for (const tool of ['redis-server', 'redis-cli'])
      await execFileAsync(tool, ['--version']).catch(() => {
        throw new Error(`${tool} is missing: ${INSTALL}`);
      });
    this.dir = await mkdtemp(join(tmpdir(), 'xt-redis-cluster-'));
    const count = this.masters * (1 + this.replicasPerMaster);
    for (let i = 0; i < count; i++) {
      const port = await clusterPort();
      this.nodes.push({ port, proc: this.spawnNode(port) });
    }
    await Promise.all(this.nodes.map((n) => this.waitFor(n.port, 'PONG', ['PING'])));
    await execFileAsync('redis-cli', [
      '--cluster',
      'create',
      ...this.nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(this.replicasPerMaster),
      '--cluster-yes',
    ]);
    for (const n of this.nodes) await this.waitFor(n.port, 'cluster_state:ok', ['CLUSTER', 'INFO']);
    return this;
  }

  /** The port of the master serving `key`'s hash slot. */
  async masterOf(key: string): Promise<number> {
    return this.withAnyNode(async (redis) => {
      const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await redis.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no node serves slot ${slot}`);
      return Number(range[2][1]);
    });
  }

  /** Kills the node on `port` (SIGKILL: no goodbye to the cluster). */
  kill(port: number): void {
    this.nodes.find((n) => n.port === port)?.proc.kill('SIGKILL');
  }

  /** Waits until a replica has taken over every slot `port` served and the cluster is ok. */
  async failedOver(port: number, timeoutMs = 30_000): Promise<void> {
    await eventually(
      () =>
        this.withAnyNode(async (redis) => {
          const info = String(await redis.call('CLUSTER', 'INFO'));
          const ranges = (await redis.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
          return info.includes('cluster_state:ok') && ranges.every((r) => Number(r[2][1]) !== port);
        }).catch(() => false),
      `a replica taking over from 127.0.0.1:${port}`,
      timeoutMs,
    );
  }

  /** Waits until the nodes left say the cluster is down (`port`, a master, killed without a replica to take over). */
  async downWithout(port: number, timeoutMs = 30_000): Promise<void> {
    await eventually(
      () =>
        this.withAnyNode(async (redis) =>
          String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:fail'),
        ),
      `the cluster down without 127.0.0.1:${port}`,
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    for (const n of this.nodes) n.proc.kill('SIGKILL');
    await Promise.all(
      this.nodes.map((n) => (running(n.proc) ? new Promise((r) => n.proc.once('exit', r)) : null)),
    );
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  private spawnNode(port: number): Node['proc'] {
    // biome-ignore format: one flag and its value a line
    const proc = spawn('redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--cluster-enabled', 'yes',
      '--cluster-config-file', join(this.dir, `nodes-${port}.conf`),
      '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
      '--dir', this.dir,
      '--save', '',
      '--appendonly', 'no',
      '--logfile', join(this.dir, `${port}.log`),
    ], { stdio: 'ignore' });
    return proc;
  }

  private async waitFor(port: number, answer: string, command: [string, ...string[]]): Promise<void> {
    const redis = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 100,
    });
    redis.on('error', () => undefined);
    try {
      await eventually(
        async () => String(await redis.call(...command).catch(() => '')).includes(answer),
        `redis on ${port} answering ${answer}`,
        20_000,
      );
    } finally {
      redis.disconnect();
    }
  }

  private async withAnyNode<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const n of this.nodes) {
      if (!running(n.proc)) continue;
      const redis = new Redis(n.port, '127.0.0.1', { maxRetriesPerRequest: 1, retryStrategy: () => null });
      redis.on('error', () => undefined);
      try {
        return await fn(redis);
      } catch (err) {
        last = err;
      } finally {
        redis.disconnect();
      }
    }
    throw last ?? new Error('no cluster node is running');
  }
}

function running(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

/** A free port whose cluster bus port (+10000) is free too. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await isFree(port + BUS_OFFSET)) return port;
  }
}
