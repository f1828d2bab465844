import { describe, expect, it } from 'vitest';
import { LeaseKeeper } from '../../../../src/services/firing/lease-keeper.js';
import type { RenewResult } from '../../../../src/storage/redis/runs/run-claims.js';

const TIMES = { leaseMs: 10_000, heartbeatMs: 2000, safetyMs: 1000 };

function keeper(answer: (key: string) => RenewResult = () => 'held') {
  let clock = 1_000_000;
  const renewed: string[] = [];
  const k = new LeaseKeeper(
    {
      renew: async (run) => {
        renewed.push(run.key);
        return answer(run.key);
      },
    },
    () => clock,
    TIMES,
  );
  return { k, renewed, advance: (ms: number) => (clock += ms), now: () => clock };
}

describe('LeaseKeeper', () => {
  it('renews a lease only when it would lapse before the next two heartbeats', async () => {
    const { k, renewed, advance, now } = keeper();
    k.hold({ key: 'a', runAt: 0 }, 'o', 1, now(), 10_000);
    await k.beat();
    expect(renewed).toEqual([]);
    advance(5000);
    await k.beat();
    expect(renewed).toEqual(['a']);
  });

  it('keeps a lease valid for as long as the heartbeat renews it', async () => {
    const { k, advance, now } = keeper();
    const lease = k.hold({ key: 'a', runAt: 0 }, 'o', 1, now(), 10_000);
    for (let i = 0; i < 60; i++) {
      advance(TIMES.heartbeatMs);
      await k.beat();
    }
    expect(lease.validUntil).toBeGreaterThan(now());
    expect(lease.lost).toBe(false);
  });

  it('marks a lease lost when a renewal finds the run in other hands', async () => {
    const { k, advance, now } = keeper(() => 'lost');
    const lease = k.hold({ key: 'a', runAt: 0 }, 'o', 1, now(), 10_000);
    advance(6000);
    await k.beat();
    expect(lease.lost).toBe(true);
    expect(await k.confirm(lease)).toBe(false);
  });

  it('renews every lease at once after Redis may have lost data, and forgets dropped ones', async () => {
    const { k, renewed, now } = keeper(() => 'reasserted');
    const a = k.hold({ key: 'a', runAt: 0 }, 'o', 1, now(), 60_000);
    k.hold({ key: 'b', runAt: 0 }, 'o', 1, now(), 60_000);
    k.drop(a);
    await k.renewAll();
    expect(renewed).toEqual(['b']);
    expect(k.size).toBe(1);
  });

  it('asks for a lease that reaches past the run’s due time', () => {
    const { k, now } = keeper();
    expect(k.claimLeaseMs(now() + 1500)).toBe(11_500);
    expect(k.claimLeaseMs(now() - 5000)).toBe(10_000);
  });
});
