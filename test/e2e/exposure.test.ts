import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, XtimerProcess } from '../helpers/processes.js';
import { createTestStores, eventually, type TestStores } from '../helpers/stores.js';

/**
 * An api without XTIMER_ADMIN_TOKEN (open mode) refuses to listen on a
 * non-loopback address unless XTIMER_INSECURE=1, and then warns; with a token it
 * listens anywhere and answers 401 to requests without one.
 */

let stores: TestStores;
const procs: XtimerProcess[] = [];

beforeAll(async () => {
  stores = await createTestStores('exposure');
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await stores?.cleanup();
});

async function start(
  name: string,
  env: Record<string, string>,
): Promise<{ proc: XtimerProcess; port: number }> {
  const port = await freePort();
  const proc = new XtimerProcess(name, {
    ...stores.env,
    XTIMER_ROLES: 'api',
    LOG_LEVEL: 'info',
    PORT: String(port),
    ...env,
  });
  procs.push(proc);
  return { proc, port };
}

describe('open mode on a non-loopback address', () => {
  it('exits non-zero naming XTIMER_ADMIN_TOKEN and XTIMER_INSECURE', async () => {
    const { proc } = await start('refused', { HOST: '0.0.0.0' });
    const { code } = await proc.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(proc.output).toContain('XTIMER_ADMIN_TOKEN');
    expect(proc.output).toContain('XTIMER_INSECURE');
    expect(proc.output).not.toContain('api listening');
  });

  it('starts with XTIMER_INSECURE=1, and logs a warning', async () => {
    const { proc, port } = await start('insecure', { HOST: '0.0.0.0', XTIMER_INSECURE: '1' });
    await proc.started();
    const warnings = proc.logs(
      'the API is open to the network: no XTIMER_ADMIN_TOKEN is set and XTIMER_INSECURE=1 allows it',
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe('warn');
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/timers`)).status).toBe(200);
    await proc.stop();
  });

  it('starts on loopback without a token (the two-command start), warning that the API is open', async () => {
    const { proc, port } = await start('loopback', { HOST: '127.0.0.1' });
    await proc.started();
    expect(
      proc.logs('the API is open: no XTIMER_ADMIN_TOKEN is set (only this machine can reach it)'),
    ).toHaveLength(1);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await proc.stop();
  });
});

describe('with an admin token', () => {
  it('exits non-zero naming XTIMER_SECRET_KEY when the token comes without one', async () => {
    const { proc } = await start('no-secret-key', {
      HOST: '0.0.0.0',
      XTIMER_ADMIN_TOKEN: 'an-admin-token-0123456789abc',
    });
    const { code } = await proc.exit;
    expect(code).not.toBe(0);
    expect(proc.output).toContain('XTIMER_SECRET_KEY');
    expect(proc.output).not.toContain('an-admin-token-0123456789abc');
  });

  it('listens on any address and answers 401 without the token', async () => {
    const token = 'an-admin-token-0123456789abc';
    const { proc, port } = await start('secured', {
      HOST: '0.0.0.0',
      XTIMER_ADMIN_TOKEN: token,
      XTIMER_SECRET_KEY: 'a-secret-key-0123456789abcdef',
    });
    await proc.started();
    const url = `http://127.0.0.1:${port}/api/v1/timers`;
    expect((await fetch(url)).status).toBe(401);
    await eventually(
      async () => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status === 200,
      '200 with the token',
    );
    expect(proc.output).not.toContain('the API is open');
    await proc.stop();
  });
});
