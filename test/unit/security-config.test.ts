import { describe, expect, it } from 'vitest';
import { ConfigError, exposureProblem, isLoopbackHost, loadConfig } from '../../src/config.js';

/**
 * The security settings: validated at start, secrets never echoed, open
 * mode kept to loopback, the SSRF guard on in every mode.
 */

const TOKEN = 'an-admin-token-0123456789abc';
const KEY = 'a-secret-key-0123456789abcdef';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
}

describe('security settings', () => {
  it('defaults to open mode with the SSRF guard on and the documented limits', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      adminToken: undefined,
      secretKey: undefined,
      appKeyGraceSeconds: 86_400,
      appRateLimitPerMinute: 600,
      maxTimersPerApp: 10_000,
      minRunIntervalMs: 1000,
      callbackBlockPrivate: true,
      callbackAllowHosts: [],
      publicHosts: [],
    });
  });

  it('keeps the SSRF guard on with an admin token too, and off only when told', () => {
    expect(loadConfig({ XTIMER_ADMIN_TOKEN: TOKEN, XTIMER_SECRET_KEY: KEY }).callbackBlockPrivate).toBe(true);
    expect(loadConfig({ HOST: '0.0.0.0', XTIMER_INSECURE: '1' }).callbackBlockPrivate).toBe(true);
    expect(loadConfig({ CALLBACK_BLOCK_PRIVATE: '' }).callbackBlockPrivate).toBe(true);
    expect(loadConfig({ CALLBACK_BLOCK_PRIVATE: 'false' }).callbackBlockPrivate).toBe(false);
  });

  it('requires XTIMER_SECRET_KEY with XTIMER_ADMIN_TOKEN, naming it', () => {
    expect(problems({ XTIMER_ADMIN_TOKEN: TOKEN })).toContain('XTIMER_SECRET_KEY');
    expect(loadConfig({ XTIMER_ADMIN_TOKEN: TOKEN, XTIMER_SECRET_KEY: KEY }).adminToken).toBe(TOKEN);
  });

  it('refuses short or spaced secrets without echoing them', () => {
    for (const [name, value] of [
      ['XTIMER_ADMIN_TOKEN', 'short-token'],
      ['XTIMER_ADMIN_TOKEN', 'a token with spaces in it, long enough'],
      ['XTIMER_SECRET_KEY', 'short-key'],
    ] as const) {
      const message = problems({ [name]: value });
      expect(message).toContain(name);
      expect(message).not.toContain(value);
    }
  });

  it('reads CALLBACK_ALLOW_HOSTS and PUBLIC_HOSTS as lower-case host names and IP addresses, refusing anything else', () => {
    expect(
      loadConfig({ CALLBACK_ALLOW_HOSTS: ' Hooks.Internal., localhost ,,127.0.0.1, [::1]' })
        .callbackAllowHosts,
    ).toEqual(['hooks.internal', 'localhost', '127.0.0.1', '::1']);
    expect(loadConfig({ PUBLIC_HOSTS: 'XTimer.Example.com, 10.0.0.5,[fd00::5]' }).publicHosts).toEqual([
      'xtimer.example.com',
      '10.0.0.5',
      'fd00::5',
    ]);
    for (const setting of ['CALLBACK_ALLOW_HOSTS', 'PUBLIC_HOSTS']) {
      for (const bad of ['http://x.example/', '10.0.0.0/8', 'a b', 'x.example:', ':80']) {
        expect(problems({ [setting]: bad }), `${setting}=${bad}`).toContain(setting);
      }
    }
    expect(problems({ PUBLIC_HOSTS: 'x.example:8081' })).toContain('PUBLIC_HOSTS');
    expect(problems({ CALLBACK_BLOCK_PRIVATE: 'maybe' })).toContain('CALLBACK_BLOCK_PRIVATE');
    expect(problems({ APP_RATE_LIMIT_PER_MINUTE: '-1' })).toContain('APP_RATE_LIMIT_PER_MINUTE');
  });
});

describe('CALLBACK_ALLOW_HOSTS with ports', () => {
  it('takes host:port for names, IPv4 and bracketed IPv6, written back normalised, a bare host beside them', () => {
    expect(
      loadConfig({
        CALLBACK_ALLOW_HOSTS:
          '127.0.0.1:9000, Hooks.Internal.:8443,[::1]:9000, ::1, localhost, 127.0.0.1:9000',
      }).callbackAllowHosts,
    ).toEqual(['127.0.0.1:9000', 'hooks.internal:8443', '[::1]:9000', '::1', 'localhost']);
  });

  it.each([
    '127.0.0.1:0',
    '127.0.0.1:65536',
    'x.example:80:1',
    'x.example:http',
    '[::1',
    '[x.example]:80',
    '::1:99999',
  ])('refuses %s', (bad) => {
    expect(problems({ CALLBACK_ALLOW_HOSTS: bad })).toContain('CALLBACK_ALLOW_HOSTS');
  });
});

describe('exposureProblem', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('lets open mode listen on %s', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(exposureProblem(loadConfig({ HOST: host }))).toBeNull();
  });

  it.each(['0.0.0.0', '::', '192.168.1.5', 'xtimer.internal'])(
    'refuses open mode on %s, naming both ways out',
    (host) => {
      const problem = exposureProblem(loadConfig({ HOST: host }));
      expect(problem).toContain('XTIMER_ADMIN_TOKEN');
      expect(problem).toContain('XTIMER_INSECURE');
    },
  );

  it('allows a non-loopback host with a token, with XTIMER_INSECURE, or without the api role', () => {
    expect(
      exposureProblem(loadConfig({ HOST: '0.0.0.0', XTIMER_ADMIN_TOKEN: TOKEN, XTIMER_SECRET_KEY: KEY })),
    ).toBeNull();
    expect(exposureProblem(loadConfig({ HOST: '0.0.0.0', XTIMER_INSECURE: '1' }))).toBeNull();
    expect(exposureProblem(loadConfig({ HOST: '0.0.0.0', XTIMER_ROLES: 'trigger,executor' }))).toBeNull();
  });
});
