import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Node itself with tsx as a loader: one process, so SIGKILL kills xtimer (the tsx CLI,
// like npx, would leave its child running).
const FROM_SOURCE = ['--import', 'tsx', 'workers/main.ts'];
/** The compiled entrypoint, as `npm start` runs it (build it first: scripts/build.mjs). */
export const FROM_DIST = ['dist/workers/main.js'];

// Ports are drawn below the kernel's ephemeral range (32768+ here): a port the kernel
// handed out and took back can go to any outgoing connection before the child binds it.
// Kept under 22768 so that a Redis Cluster node's bus port (+10000) stays below it too.
const PORTS_FROM = 10_000;
const PORTS_TO = 22_768;
const handedOut = new Set<number>();

/** A port nobody listens on right now, not handed out before in this worker. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1_000; tries++) {
    const port = PORTS_FROM + Math.floor(Math.random() * (PORTS_TO - PORTS_FROM));
    if (handedOut.has(port) || !(await isFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PORTS_FROM} and ${PORTS_TO}`);
}

/** Whether a listener can bind `port` on 127.0.0.1 right now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A running xtimer process (workers/main.ts, or `nodeArgs`) with its output kept for assertions. */
export class XtimerProcess {
  readonly child: ChildProcess;
  output = '';
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    env: Record<string, string>,
    nodeArgs: readonly string[] = FROM_SOURCE,
  ) {
    this.child = spawn(process.execPath, nodeArgs, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      if (this.output.length > 4_000_000) this.output = this.output.slice(-2_000_000);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exit = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once the process has logged that all its roles started. */
  async started(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes('"xtimer started"')) {
      if (!this.running) throw new Error(`${this.name} exited before starting:\n${this.output.slice(-3000)}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not start in ${timeoutMs} ms:\n${this.output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Sends `signal` and waits for the exit. */
  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill(signal);
    return this.exit;
  }

  /** Log lines (parsed JSON) whose message matches. */
  logs(msg: string): Array<Record<string, unknown>> {
    return this.output
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes(msg))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === msg);
  }
}
