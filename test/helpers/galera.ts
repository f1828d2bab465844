import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './processes.js';

const execFileAsync = promisify(execFile);
const MARIADBD = '/usr/sbin/mariadbd';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
/**
 * Under root, rsync's state-transfer daemon drops to `nobody` and then cannot write or
 * chgrp root's files: the nodes run as `nobody` themselves, on data dirs that are its own.
 */
const NODE_USER = process.getuid?.() === 0 ? 'nobody' : (process.env.USER ?? 'nobody');

interface GaleraNode {
  index: number;
  port: number;
  gcomm: number;
  ist: number;
  sst: number;
  dir: string;
  proc: ChildProcess | null;
  log: string[];
}

/**
 * A throwaway MariaDB Galera cluster on free local ports, one data dir per node under a
 * temp dir, state transfer by rsync. `stop` kills every node and removes the files.
 */
export class GaleraCluster {
  readonly nodes: GaleraNode[] = [];
  private root = '';
  /** How long each node took to start and sync, in ms. */
  readonly timings: number[] = [];

  constructor(readonly size: number) {}

  /** MYSQL_URL for xtimer: every node, in order, and `database`. */
  url(database: string): string {
    return `mysql://root@${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/${database}`;
  }

  async start(): Promise<this> {
    await execFileAsync('rsync', ['--version']).catch(() => {
      throw new Error('rsync is missing (the state transfer uses it): apt-get install -y rsync');
    });
    this.root = await mkdtemp(join(tmpdir(), 'xt-galera-'));
    await chmod(this.root, 0o755);
    for (let index = 0; index < this.size; index++) {
      const dir = join(this.root, `node${index}`);
      const [port, gcomm, ist, sst] = [
        await freePort(),
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      this.nodes.push({ index, port, gcomm, ist, sst, dir, proc: null, log: [] });
      await mkdir(join(dir, 'data'), { recursive: true });
      await execFileAsync('chown', ['-R', `${NODE_USER}:`, dir]);
      if (index === 0)
        await execFileAsync('mariadb-install-db', [
          '--no-defaults',
          `--datadir=${join(dir, 'data')}`,
          `--user=${NODE_USER}`,
          '--auth-root-authentication-method=normal',
          '--skip-test-db',
        ]);
    }
    // The first node bootstraps the cluster; the others join it one at a time (SST each).
    for (const node of this.nodes) {
      const t0 = Date.now();
      this.spawn(node, node.index === 0);
      await this.untilSynced(node, 90_000);
      this.timings.push(Date.now() - t0);
    }
    await this.untilClusterSize(this.size, 30_000);
    return this;
  }

  /** SIGKILL: no goodbye to the cluster, as a crashed host. */
  kill(index: number): void {
    const node = this.nodes[index];
    node?.proc?.kill('SIGKILL');
  }

  /** Starts a killed node again on its data dir: it rejoins by IST. */
  async restart(index: number): Promise<void> {
    const node = this.nodes[index];
    if (!node) throw new Error(`no node ${index}`);
    if (node.proc && node.proc.exitCode === null && node.proc.signalCode === null)
      await new Promise((r) => node.proc?.once('exit', r));
    node.log.length = 0;
    // As galera_recovery does: after a crash grastate.dat holds no position, so read it from
    // InnoDB first and start from it, and the node asks for the writes it missed (IST), not a copy.
    const recovered = await execFileAsync(MARIADBD, [...this.args(node, false), '--wsrep-recover']).then(
      ({ stderr }) => /Recovered position: (\S+:-?\d+)/.exec(stderr)?.[1],
      (err: { stderr?: string }) => /Recovered position: (\S+:-?\d+)/.exec(err.stderr ?? '')?.[1],
    );
    this.spawn(node, false, recovered ? [`--wsrep-start-position=${recovered}`] : []);
    await this.untilSynced(node, 90_000);
  }

  /**
   * Cuts a node off from the others while it keeps running and taking connections, as a
   * network partition would (`gmcast.isolate`): the others drop it after
   * `evs.suspect_timeout` (5 s) and it is left alone in a non-primary component, refusing
   * statements with 1047.
   */
  async isolate(index: number): Promise<void> {
    await this.query(index, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
  }

  /** Ends `isolate`: the node rejoins the primary component and catches up (IST). */
  async reconnect(index: number): Promise<void> {
    const node = this.nodes[index];
    if (!node) throw new Error(`no node ${index}`);
    await this.query(index, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
    await this.untilSynced(node, 60_000);
  }

  async query<T>(index: number, sql: string): Promise<T[]> {
    const node = this.nodes[index];
    if (!node) throw new Error(`no node ${index}`);
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root' });
    try {
      // DATETIME columns hold UTC, whatever this machine's zone.
      await conn.query("SET time_zone = '+00:00'");
      const [rows] = await conn.query(sql);
      return rows as T[];
    } finally {
      await conn.end();
    }
  }

  async untilClusterSize(size: number, timeoutMs: number, index = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await this.query<{ Value: string }>(index, "SHOW STATUS LIKE 'wsrep_cluster_size'").catch(
        () => [],
      );
      if (Number(rows[0]?.Value) === size) return;
      if (Date.now() > deadline)
        throw new Error(`the cluster did not reach ${size} nodes in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (n) => {
        const proc = n.proc;
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGKILL');
        await exited;
      }),
    );
    if (this.root) await rm(this.root, { recursive: true, force: true });
  }

  private spawn(node: GaleraNode, bootstrap: boolean, extra: string[] = []): void {
    const proc = spawn(MARIADBD, [...this.args(node, bootstrap), ...extra], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      node.log.push(chunk.toString());
      if (node.log.length > 400) node.log.splice(0, 200);
    });
    node.proc = proc;
  }

  private args(node: GaleraNode, bootstrap: boolean): string[] {
    const peers = this.nodes.map((n) => `127.0.0.1:${n.gcomm}`).join(',');
    return [
      '--no-defaults',
      `--user=${NODE_USER}`,
      `--datadir=${join(node.dir, 'data')}`,
      `--socket=${join(node.dir, 'mysqld.sock')}`,
      `--pid-file=${join(node.dir, 'mysqld.pid')}`,
      `--port=${node.port}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=16M',
      '--wsrep-on=ON',
      `--wsrep-provider=${PROVIDER}`,
      `--wsrep-cluster-address=gcomm://${peers}`,
      `--wsrep-node-address=127.0.0.1:${node.gcomm}`,
      `--wsrep-node-name=node${node.index}`,
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${node.gcomm};ist.recv_addr=127.0.0.1:${node.ist};gcache.size=64M`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${node.sst}`,
      ...(bootstrap ? ['--wsrep-new-cluster'] : []),
    ];
  }

  private async untilSynced(node: GaleraNode, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await this.query<{ Value: string }>(
        node.index,
        "SHOW STATUS LIKE 'wsrep_local_state_comment'",
      ).catch(() => []);
      if (rows[0]?.Value === 'Synced') return;
      if (node.proc?.exitCode !== null || Date.now() > deadline)
        throw new Error(`galera node${node.index} did not sync:\n${node.log.join('').slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
