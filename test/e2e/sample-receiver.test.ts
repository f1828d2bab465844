import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverSamples } from '../helpers/doc-samples.js';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/stores.js';

/**
 * The README's sample receiver, run as a reader copies it: only the import of xtimer/client
 * (the built package there) points at the client's source, and the port is a free one. It
 * must take a signed call with no body (a timer sends none unless it sets one), do a run's
 * work once however often the run comes, and refuse an unsigned call without falling over.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
let dir: string;
let port: number;
let receiver: XtimerProcess;

beforeAll(async () => {
  const sample = receiverSamples(readFileSync(join(ROOT, 'README.md'), 'utf8'))[0]!;
  port = await freePort();
  const client = JSON.stringify(pathToFileURL(join(ROOT, 'client/index.ts')).href);
  const code = sample.replace("'xtimer/client'", client).replace('.listen(3000)', `.listen(${port})`);
  expect(code, 'the sample imports xtimer/client and listens on 3000').not.toContain('xtimer/client');
  expect(code).toContain(`.listen(${port})`);
  dir = mkdtempSync(join(tmpdir(), 'xtimer-receiver-'));
  writeFileSync(join(dir, 'receiver.ts'), code);
  receiver = new XtimerProcess('receiver', { XTIMER_SIGNING_SECRET: secret }, [
    '--import',
    'tsx',
    join(dir, 'receiver.ts'),
  ]);
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })).status === 401,
    'the receiver listening',
    20_000,
  );
});

afterAll(async () => {
  await receiver?.stop('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A call as xtimer signs it: the task key as webhook-id, and the run's X-Xtimer-* headers. */
function signedCall(taskId: string, body: string, attempt = 1): RequestInit {
  const [timerId, runAt] = taskId.split('_');
  const at = new Date();
  return {
    method: 'POST',
    body: body || null,
    headers: {
      'webhook-id': taskId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(taskId, at, body),
      'x-xtimer-task-id': taskId,
      'x-xtimer-timer-id': timerId!,
      'x-xtimer-scheduled-at': runAt!,
      'x-xtimer-attempt': String(attempt),
      'x-xtimer-trigger': 'schedule',
    },
  };
}

const call = async (init: RequestInit) => {
  const res = await fetch(`http://127.0.0.1:${port}/hooks/run`, init);
  return { status: res.status, text: await res.text() };
};
/** The receiver's stdout reaches us a little after its answer: waits for a line of work. */
const workSaid = (line: string) =>
  eventually(async () => receiver.output.includes(line), `the receiver saying "${line}"`, 10_000);
const timesDone = (runAt: string) =>
  receiver.output.split('\n').filter((l) => l.startsWith(`run for ${runAt}`)).length;

describe("the README's sample receiver", () => {
  it('answers a signed call without a body, and does its work', async () => {
    expect(await call(signedCall('7_1795372200000', ''))).toEqual({ status: 200, text: 'ok' });
    await workSaid('run for 2026-11-22T18:30:00.000Z (no body)');
  });

  it('does a run delivered twice (a takeover: the next attempt) once', async () => {
    await workSaid('run for 2026-11-22T18:30:00.000Z');
    expect((await call(signedCall('7_1795372200000', '', 2))).status).toBe(200);
    // A later run's line comes after any the second delivery would have written.
    expect((await call(signedCall('7_1795372440000', ''))).status).toBe(200);
    await workSaid('run for 2026-11-22T18:34:00.000Z');
    expect(timesDone('2026-11-22T18:30:00.000Z')).toBe(1);
  });

  it('hands a body that is not JSON to the work as sent', async () => {
    expect((await call(signedCall('7_1795372260000', 'plain text'))).status).toBe(200);
    await workSaid('run for 2026-11-22T18:31:00.000Z plain text');
  });

  it('refuses an unsigned or tampered call with 401 and keeps running', async () => {
    expect(await call({ method: 'POST' })).toEqual({ status: 401, text: 'bad signature' });
    const tampered = signedCall('7_1795372320000', '{"k":1}');
    expect((await call({ ...tampered, body: '{"k":2}' })).status).toBe(401);
    expect(receiver.running).toBe(true);
    expect((await call(signedCall('7_1795372380000', ''))).status).toBe(200);
  });
});
