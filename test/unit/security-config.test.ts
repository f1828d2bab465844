import { describe, expect, it } from 'vitest';
import { ConfigError, exposureProblem, isLoopbackHost, loadConfig } from '../../src/config.js';

/** Issue 7's settings: validated at start, secrets never echoed, open mode kept to loopback. */

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
  it('defaults to open mode with the guard off and the documented limits', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      adminToken: undefined,
      secretKey: undefined,
      appKeyGraceSeconds: 86_400,
      appRateLimitPerMinute: 600,
      maxTimersPerApp: 10_000,
      minRunIntervalMs: 1000,
      callbackBlockPrivate: false,
      callbackAllowHosts: [],
    });
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

  it('reads CALLBACK_ALLOW_HOSTS as lower-case host names and refuses anything else', () => {
    expect(loadConfig({ CALLBACK_ALLOW_HOSTS: ' Hooks.Internal., localhost ,,' }).callbackAllowHosts).toEqual(
      ['hooks.internal', 'localhost'],
    );
    expect(problems({ CALLBACK_ALLOW_HOSTS: 'http://x.example/' })).toContain('CALLBACK_ALLOW_HOSTS');
    expect(problems({ CALLBACK_BLOCK_PRIVATE: 'maybe' })).toContain('CALLBACK_BLOCK_PRIVATE');
    expect(problems({ APP_RATE_LIMIT_PER_MINUTE: '-1' })).toContain('APP_RATE_LIMIT_PER_MINUTE');
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
