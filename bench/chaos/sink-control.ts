/** The runner's handle on the chaos sink (bench/chaos/sink-process.ts), a child process. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SinkCall } from './checker.js';
import type { SinkMode } from './journal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export class ChaosSink {
  private constructor(
    private readonly child: ChildProcess,
    /** Where xtimer's callbacks go. */
    readonly port: number,
    private readonly controlPort: number,
  ) {}

  static async start(logFile: string): Promise<ChaosSink> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/chaos/sink-process.ts', logFile], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const ports = await new Promise<[number, number]>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const m = /chaos sink listening (\d+) (\d+)/.exec(output);
        if (m) resolve([Number(m[1]), Number(m[2])]);
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', (code) => reject(new Error(`the chaos sink exited (${code}):\n${output}`)));
    });
    return new ChaosSink(child, ports[0], ports[1]);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async phase(mode: SinkMode, delayMs = 0): Promise<void> {
    await this.control(`/phase?mode=${mode}&delayMs=${delayMs}`, 'POST');
  }

  /** The xtimer processes whose calls the sink attributes (every start changes them). */
  async callers(pids: number[]): Promise<void> {
    await this.control(`/pids?list=${pids.join(',')}`, 'POST');
  }

  async calls(): Promise<SinkCall[]> {
    return (await this.control('/calls')) as SinkCall[];
  }

  async openCalls(): Promise<number> {
    return ((await this.control('/open')) as { open: number }).open;
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private async control(path: string, method = 'GET'): Promise<unknown> {
    const res = await fetch(`http://127.0.0.1:${this.controlPort}${path}`, {
      method,
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`chaos sink ${path}: ${res.status}`);
    return res.json();
  }
}
