/**
 * The xtimer processes of a chaos run: one per slot, every role, each reaching MySQL
 * through a proxy of its own so that MySQL can be cut for one process or for all. A slot's
 * process can be signalled and started again; each start is an incarnation (`p1.2`) with a
 * log file of its own. Every change goes into the journal.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { freePort, XtimerProcess } from '../../test/helpers/processes.js';
import { TcpProxy } from '../../test/helpers/tcp-proxy.js';
import type { Journal, Signal } from './journal.js';

/** A start gets this long to log that its roles are up. */
const START_TIMEOUT_MS = 60_000;
/** A start that failed (MySQL cut, say) is tried again after this long. */
const RETRY_START_MS = 2000;
/**
 * A process still running this long after SIGTERM is killed, so its slot can start again
 * (longer than a shutdown that lets 25 s calls finish should take).
 */
const EXIT_WAIT_MS = 45_000;
/** How long the restore at the end waits for every process to be up before the check goes on. */
const RESTORE_WAIT_MS = 60_000;

interface Slot {
  index: number;
  proxy: TcpProxy;
  port: number;
  proc: XtimerProcess | null;
  starts: number;
  /** Its roles are up (logged "xtimer started"). */
  ready: boolean;
  frozen: boolean;
  /** SIGTERM or SIGKILL sent: its exit is expected. */
  leaving: boolean;
  mysqlCut: boolean;
  /** A start under way. */
  starting: Promise<void> | null;
}

export interface FleetOptions {
  size: number;
  /** The environment every process shares (Redis, prefix, log level…); MYSQL_URL and PORT are per slot. */
  env: Record<string, string>;
  mysql: { host: string; port: number };
  mysqlUrlVia: (proxyPort: number) => string;
  logDir: string;
  journal: Journal;
  /** Told the pids of the running processes after every start. */
  onPids: (pids: number[]) => Promise<void>;
}

export class Fleet {
  private readonly slots: Slot[] = [];
  private closing = false;

  constructor(private readonly o: FleetOptions) {}

  async start(): Promise<void> {
    for (let index = 0; index < this.o.size; index++) {
      const proxy = await new TcpProxy(this.o.mysql.host, this.o.mysql.port).start();
      this.slots.push({
        index,
        proxy,
        port: await freePort(),
        proc: null,
        starts: 0,
        ready: false,
        frozen: false,
        leaving: false,
        mysqlCut: false,
        starting: null,
      });
    }
    await Promise.all(this.slots.map((s) => this.ensureUp(s.index)));
  }

  /** The API of a process that can answer now (up, not frozen, not leaving, with MySQL), or null. */
  apiBase(): string | null {
    const s = this.slots.find((x) => x.ready && !x.frozen && !x.leaving && !x.mysqlCut);
    return s ? `http://127.0.0.1:${s.port}` : null;
  }

  pids(): number[] {
    return this.slots.flatMap((s) => (s.proc?.running && s.proc.child.pid ? [s.proc.child.pid] : []));
  }

  signal(slot: number, signal: Signal): void {
    const s = this.slots[slot]!;
    const proc = s.proc;
    if (!proc?.running || s.leaving) {
      this.o.journal.write({
        kind: 'skip',
        at: Date.now(),
        action: `${signal} p${slot}`,
        why: 'not running',
      });
      return;
    }
    if (signal === 'SIGTERM' || signal === 'SIGKILL') {
      s.leaving = true;
      s.ready = false;
    }
    if (signal === 'SIGSTOP') s.frozen = true;
    if (signal === 'SIGCONT') s.frozen = false;
    proc.child.kill(signal);
    this.o.journal.write({
      kind: 'proc.signal',
      at: Date.now(),
      slot,
      name: proc.name,
      pid: proc.child.pid ?? 0,
      signal,
    });
  }

  /**
   * Starts the slot again once its process, told to stop, has exited (killed if it
   * lingers past EXIT_WAIT_MS); a slot whose process runs is left as it is.
   */
  async restart(slot: number): Promise<void> {
    const s = this.slots[slot]!;
    const proc = s.proc;
    if (proc?.running && s.leaving) {
      const exited = await Promise.race([proc.exit.then(() => true), sleep(EXIT_WAIT_MS).then(() => false)]);
      if (!exited && proc.running) {
        this.o.journal.write({
          kind: 'skip',
          at: Date.now(),
          action: `restart p${slot}`,
          why: `${proc.name} still running ${EXIT_WAIT_MS / 1000} s after it was told to stop: SIGKILL`,
        });
        // signal() leaves a leaving process alone: this one has to go.
        proc.child.kill('SIGKILL');
        this.o.journal.write({
          kind: 'proc.signal',
          at: Date.now(),
          slot,
          name: proc.name,
          pid: proc.child.pid ?? 0,
          signal: 'SIGKILL',
        });
        await proc.exit;
      }
    }
    await this.ensureUp(slot);
  }

  cutMysql(slots: number[]): void {
    for (const i of slots) {
      this.slots[i]!.proxy.cut();
      this.slots[i]!.mysqlCut = true;
    }
    this.o.journal.write({ kind: 'mysql.cut', at: Date.now(), slots });
  }

  restoreMysql(slots: number[]): void {
    for (const i of slots) {
      this.slots[i]!.proxy.restore();
      this.slots[i]!.mysqlCut = false;
    }
    this.o.journal.write({ kind: 'mysql.restore', at: Date.now(), slots });
  }

  /** Every process up and thawed, MySQL reachable from each (or RESTORE_WAIT_MS passed, journaled). */
  async restoreAll(): Promise<void> {
    const cut = this.slots.filter((s) => s.mysqlCut).map((s) => s.index);
    if (cut.length > 0) this.restoreMysql(cut);
    for (const s of this.slots) if (s.frozen) this.signal(s.index, 'SIGCONT');
    const up = Promise.all(this.slots.map((s) => this.restart(s.index)));
    if (await Promise.race([up.then(() => true), sleep(RESTORE_WAIT_MS).then(() => false)])) return;
    for (const s of this.slots.filter((x) => !x.ready)) {
      this.o.journal.write({
        kind: 'skip',
        at: Date.now(),
        action: `restore p${s.index}`,
        why: `not up ${RESTORE_WAIT_MS / 1000} s into the restore`,
      });
    }
  }

  /** Kills every process at once (the checker has what it needs), and the proxies. */
  async close(): Promise<void> {
    this.closing = true;
    this.killNow();
    await Promise.all(this.slots.map((s) => s.proc?.exit));
    await Promise.all(this.slots.map((s) => s.proxy.stop()));
  }

  /** SIGKILL to every process, synchronously (for process exit). */
  killNow(): void {
    this.closing = true;
    for (const s of this.slots) if (s.proc?.running) s.proc.child.kill('SIGKILL');
  }

  /** Starts the slot's process if it is not running, trying again until it comes up. */
  private ensureUp(slot: number): Promise<void> {
    const s = this.slots[slot]!;
    if (s.proc?.running) return s.starting ?? Promise.resolve();
    s.starting ??= (async () => {
      while (!this.closing) {
        const proc = this.spawn(s);
        try {
          await proc.started(START_TIMEOUT_MS);
          s.ready = true;
          this.o.journal.write({
            kind: 'proc.ready',
            at: Date.now(),
            slot,
            name: proc.name,
            pid: proc.child.pid ?? 0,
          });
          return;
        } catch {
          // A start that failed is no crash: it never took work.
          s.leaving = true;
          if (proc.running) proc.child.kill('SIGKILL');
          await proc.exit;
          await sleep(RETRY_START_MS);
        }
      }
    })().finally(() => {
      s.starting = null;
    });
    return s.starting;
  }

  private spawn(s: Slot): XtimerProcess {
    const name = `p${s.index}.${s.starts++}`;
    const proc = new XtimerProcess(name, {
      ...this.o.env,
      MYSQL_URL: this.o.mysqlUrlVia(s.proxy.port),
      PORT: String(s.port),
    });
    const log = createWriteStream(join(this.o.logDir, `${name}.log`));
    proc.child.stdout?.on('data', (c: Buffer) => log.write(c));
    proc.child.stderr?.on('data', (c: Buffer) => log.write(c));
    const pid = proc.child.pid ?? 0;
    s.proc = proc;
    s.leaving = false;
    s.frozen = false;
    s.ready = false;
    this.o.journal.write({ kind: 'proc.start', at: Date.now(), slot: s.index, name, pid });
    void this.o.onPids(this.pids()).catch(() => undefined);
    void proc.exit.then(({ code, signal }) => {
      log.end();
      // A process that never came up took no work: its start is retried by ensureUp.
      const expected = s.leaving || this.closing || !proc.output.includes('"xtimer started"');
      if (s.proc === proc) s.ready = false;
      this.o.journal.write({
        kind: 'proc.exit',
        at: Date.now(),
        slot: s.index,
        name,
        pid,
        code,
        signal,
        expected,
      });
      // A crash is restarted, as a supervisor would; the journal keeps it.
      if (!expected && s.proc === proc && !this.closing)
        void sleep(RETRY_START_MS).then(() => this.ensureUp(s.index));
    });
    return proc;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
