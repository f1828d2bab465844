import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.js';
import { eventually } from '../helpers/stores.js';

/**
 * The sample receivers of samples/receivers/ (shown in docs/receivers.md, the TypeScript one
 * in the README too), each run as a reader runs it, on a free PORT. Each must take a signed
 * call with no body (a timer sends none unless it sets one) and a signed JSON one, do a run's
 * work once however often the run comes, and refuse an unsigned, forged or replayed call with
 * 401 without falling over. Signatures are made with the standardwebhooks package, which
 * xtimer signs with, so the Python and Go checks are held to the real thing.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLES = join(ROOT, 'samples/receivers');
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const GO_MISSING = 'go not found: apt-get install -y golang-go (the Go sample receiver is built with it)';

const onPath = (command: string): boolean =>
  spawnSync(command, ['version'], { stdio: 'ignore' }).error === undefined;

/** A sample receiver's process, with its output kept for assertions. */
class Receiver {
  output = '';
  private readonly child: ChildProcess;

  constructor(command: string, args: string[], port: number) {
    this.child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, XTIMER_SIGNING_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (this.output += chunk.toString('utf8'));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await once(this.child, 'exit');
  }
}

/** A call as xtimer signs it: the task key as webhook-id, and the run's X-Xtimer-* headers. */
function signedCall(
  taskId: string,
  body: string,
  { attempt = 1, signAt = new Date(), key = secret } = {},
): RequestInit & { headers: Record<string, string> } {
  const [timerId, runAt] = taskId.split('_');
  return {
    method: 'POST',
    body: body || null,
    headers: {
      ...(body.startsWith('{') ? { 'content-type': 'application/json' } : {}),
      'webhook-id': taskId,
      'webhook-timestamp': String(Math.floor(signAt.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign(taskId, signAt, body),
      'x-xtimer-task-id': taskId,
      'x-xtimer-timer-id': timerId!,
      'x-xtimer-scheduled-at': runAt!,
      'x-xtimer-attempt': String(attempt),
      'x-xtimer-trigger': 'schedule',
    },
  };
}

interface Sample {
  language: string;
  file: string;
  /** Given the sample's file and a scratch folder: the command that runs it. */
  start(file: string, dir: string): Promise<[string, string[]]>;
  /** How long its first start may take (Go compiles first). */
  startMs: number;
}

const SAMPLE_RECEIVERS: Sample[] = [
  {
    language: 'TypeScript',
    file: 'receiver.ts',
    // Only the import of xtimer/client (the built package in a clone) points at the client's source.
    async start(file, dir) {
      const client = JSON.stringify(pathToFileURL(join(ROOT, 'client/index.ts')).href);
      const code = readFileSync(file, 'utf8').replace("'xtimer/client'", client);
      expect(code, 'the sample imports xtimer/client').not.toContain('xtimer/client');
      writeFileSync(join(dir, 'receiver.ts'), code);
      return [process.execPath, ['--import', 'tsx', join(dir, 'receiver.ts')]];
    },
    startMs: 20_000,
  },
  {
    language: 'Python',
    file: 'receiver.py',
    start: async (file) => ['python3', [file]],
    startMs: 20_000,
  },
  {
    language: 'Go',
    file: 'receiver.go',
    // Built first: `go run` would leave its compiled child running when killed.
    async start(file, dir) {
      if (!onPath('go')) throw new Error(GO_MISSING);
      const build = spawn('go', ['build', '-o', join(dir, 'receiver'), file], { cwd: dir, stdio: 'pipe' });
      let output = '';
      build.stderr.on('data', (b: Buffer) => (output += b));
      const [code] = await once(build, 'exit');
      expect(code, `go build failed:\n${output}`).toBe(0);
      return [join(dir, 'receiver'), []];
    },
    startMs: 90_000,
  },
];

describe.each(SAMPLE_RECEIVERS.map((s) => [s.language, s] as const))(
  'the %s sample receiver',
  (_, sample) => {
    let dir: string;
    let port: number;
    let receiver: Receiver;

    const call = async (init: RequestInit) => {
      const res = await fetch(`http://127.0.0.1:${port}/hooks/run`, init);
      return { status: res.status, text: await res.text() };
    };
    /** The receiver's stdout reaches us a little after its answer: waits for a line of work. */
    const workSaid = (line: string) =>
      eventually(async () => receiver.output.includes(line), `the receiver saying "${line}"`, 10_000);
    const timesDone = (runAt: string) =>
      receiver.output.split('\n').filter((l) => l.startsWith(`run for ${runAt}`)).length;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'xtimer-receiver-'));
      port = await freePort();
      const [command, args] = await sample.start(join(SAMPLES, sample.file), dir);
      receiver = new Receiver(command, args, port);
      await eventually(
        async () => {
          if (!receiver.running) throw new Error(`it exited:\n${receiver.output}`);
          return (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })).status === 401;
        },
        'the receiver listening',
        sample.startMs,
      );
    }, 120_000);

    afterAll(async () => {
      await receiver?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers a signed call without a body with 200, and does its work', async () => {
      expect(await call(signedCall('7_1795372200000', ''))).toEqual({ status: 200, text: 'ok' });
      await workSaid('run for 2026-11-22T18:30:00.000Z (no body)');
    });

    it('answers a signed JSON call with 200, and hands its work the body as sent', async () => {
      const body = '{"job":"nightly-invoice","n":1}';
      expect(await call(signedCall('7_1795372500000', body))).toEqual({ status: 200, text: 'ok' });
      await workSaid(`run for 2026-11-22T18:35:00.000Z ${body}`);
    });

    it('does a run delivered twice (a takeover: the next attempt) once', async () => {
      await workSaid('run for 2026-11-22T18:30:00.000Z');
      expect((await call(signedCall('7_1795372200000', '', { attempt: 2 }))).status).toBe(200);
      // A later run's line comes after any the second delivery would have written.
      expect((await call(signedCall('7_1795372440000', ''))).status).toBe(200);
      await workSaid('run for 2026-11-22T18:34:00.000Z');
      expect(timesDone('2026-11-22T18:30:00.000Z')).toBe(1);
    });

    it('hands a body that is not JSON to the work as sent', async () => {
      expect((await call(signedCall('7_1795372260000', 'plain text'))).status).toBe(200);
      await workSaid('run for 2026-11-22T18:31:00.000Z plain text');
    });

    it('takes either signature while a secret is rotated out', async () => {
      const other = `whsec_${randomBytes(32).toString('base64')}`;
      const signAt = new Date();
      const old = signedCall('7_1795372560000', '', { signAt, key: other }).headers['webhook-signature'];
      const current = signedCall('7_1795372560000', '', { signAt });
      current.headers['webhook-signature'] = `${old} ${current.headers['webhook-signature']}`;
      expect((await call(current)).status).toBe(200);
      await workSaid('run for 2026-11-22T18:36:00.000Z (no body)');
    });

    it('refuses an unsigned, forged or replayed call with 401, and keeps running', async () => {
      const refused = { status: 401, text: 'bad signature' };
      expect(await call({ method: 'POST' })).toEqual(refused);
      const tampered = signedCall('7_1795372320000', '{"k":1}');
      expect(await call({ ...tampered, body: '{"k":2}' })).toEqual(refused);
      const otherKey = `whsec_${randomBytes(32).toString('base64')}`;
      expect(await call(signedCall('7_1795372320000', '{"k":1}', { key: otherKey }))).toEqual(refused);
      // Signed right, but ten minutes ago: outside the 5 minutes a signature is good for.
      const replayed = signedCall('7_1795372320000', '', { signAt: new Date(Date.now() - 600_000) });
      expect(await call(replayed)).toEqual(refused);
      // The X-Xtimer-* headers are not signed: one that contradicts the signed task id is refused.
      const moved = signedCall('7_1795372320000', '');
      moved.headers['x-xtimer-scheduled-at'] = '1795372380000';
      expect(await call(moved)).toEqual(refused);
      expect(timesDone('2026-11-22T18:32:00.000Z')).toBe(0);
      expect(receiver.running).toBe(true);
      expect((await call(signedCall('7_1795372380000', ''))).status).toBe(200);
    });
  },
);
