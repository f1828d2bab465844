import { describe, expect, expectTypeOf, it } from 'vitest';
import { ErrorCode, RateLimitedError, XtimerError } from '../../../../src/errors.js';
import { AccessScope, ADMIN, appActor, INTERNAL, scoped } from '../../../../src/services/timers/access.js';
import type { RateLimiter } from '../../../../src/storage/redis/rate-limiter.js';

/** A concept as the services write them: use cases take the scope first, xtimer's own do not. */
class Notes {
  readonly seen: Array<{ scope: AccessScope; args: unknown[] }> = [];

  async read(scope: AccessScope, app: string, id: number): Promise<string> {
    scope.useApp(app);
    this.seen.push({ scope, args: [app, id] });
    return `${app}/${id}`;
  }

  async write(scope: AccessScope, app: string, text = 'blank'): Promise<string> {
    scope.useApp(app);
    await scope.spend();
    return `${scope.author?.actor ?? 'nobody'} wrote ${text}`;
  }

  /** xtimer's own: no scope. */
  async sweep(now: number): Promise<number> {
    return now;
  }

  async count(): Promise<number> {
    return this.seen.length;
  }
}

const limiterAllowing = (n: number) => {
  let hits = 0;
  return {
    hit: async () => (++hits <= n ? { allowed: true } : { allowed: false, retryAfterSec: 7 }),
  } as unknown as RateLimiter;
};

describe('a concept scoped to one caller', () => {
  it('passes the bound scope as the first argument of each use case', async () => {
    const notes = new Notes();
    const scope = new AccessScope(ADMIN, { actor: 'admin', batchId: null });
    const asAdmin = scoped(notes, scope);
    expect(await asAdmin.read('billing', 7)).toBe('billing/7');
    expect(await asAdmin.write('billing')).toBe('admin wrote blank');
    expect(notes.seen).toEqual([{ scope, args: ['billing', 7] }]);
  });

  it("refuses an app key another app's use case, and spends its rate limit on changes", async () => {
    const key = appActor('billing', 'key-1');
    const asKey = scoped(
      new Notes(),
      new AccessScope(key, { actor: 'key-1', batchId: null }, limiterAllowing(1)),
    );
    await expect(asKey.read('payroll', 1)).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
    expect(await asKey.write('billing', 'x')).toBe('key-1 wrote x');
    await expect(asKey.write('billing', 'y')).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('keeps a retired key from what it may no longer do', () => {
    const retired = new AccessScope(appActor('billing', 'old', true), undefined);
    expect(() => retired.notRetired('set a notify URL')).toThrow(XtimerError);
    expect(() => INTERNAL.notRetired('set a notify URL')).not.toThrow();
  });

  it("reaches only the use cases, not xtimer's own methods", () => {
    const asAdmin = scoped(new Notes(), INTERNAL);
    expectTypeOf(asAdmin).toHaveProperty('read');
    expectTypeOf(asAdmin.write).parameters.toEqualTypeOf<[app: string, text?: string | undefined]>();
    expectTypeOf(asAdmin).not.toHaveProperty('sweep');
    expectTypeOf(asAdmin).not.toHaveProperty('count');
    expectTypeOf(asAdmin).not.toHaveProperty('seen');
  });
});
