import { describe, expect, it } from 'vitest';
import { type Firing, FiringLull } from '../../../../../src/services/firing/release/firing-lull.js';

/** An executor's calls as the test sets them, against a clock the test moves. */
function setUp() {
  let now = 1_000_000;
  const firing = { inFlight: 0, next: null as number | null, last: null as number | null };
  const lull = new FiringLull(() => now);
  lull.follow({
    callsInFlight: () => firing.inFlight,
    nextRelease: () => firing.next,
    lastRelease: () => firing.last,
  } satisfies Firing);
  return {
    lull,
    firing,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Whether `p` settled within a few turns of the event loop. */
async function settles(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 5 && !done; i++) await new Promise((r) => setTimeout(r, 10));
  return done;
}

describe('FiringLull', () => {
  it('is always a lull without an executor in the process', async () => {
    const lull = new FiringLull(() => 0);
    expect(lull.isNow).toBe(true);
    expect(await settles(lull.reached())).toBe(true);
  });

  it('waits while the calls of a release are out, and ends when they are answered', async () => {
    const { lull, firing, now } = setUp();
    firing.last = now() - 50;
    firing.inFlight = 3000;
    firing.next = now() + 950;
    const waiting = lull.reached();
    expect(await settles(waiting)).toBe(false);
    firing.inFlight = 0;
    expect(await settles(waiting)).toBe(true);
  });

  it('is no lull when runs are let go within 250 ms', async () => {
    const { lull, firing, now, advance } = setUp();
    firing.next = now() + 200;
    const waiting = lull.reached();
    expect(await settles(waiting)).toBe(false);
    // Released: the next release is a second away, and its calls were answered.
    advance(200);
    firing.last = now();
    firing.next = now() + 1000;
    advance(100);
    expect(await settles(waiting)).toBe(true);
  });

  it('does not wait on calls that wait on slow receivers half a second after their release', async () => {
    const { lull, firing, now, advance } = setUp();
    firing.last = now();
    firing.inFlight = 1000;
    firing.next = now() + 1000;
    expect(lull.isNow).toBe(false);
    advance(500);
    expect(lull.isNow).toBe(true);
  });

  it('gives up after a second without a lull, then does not wait for ten seconds', async () => {
    const { lull, firing, now, advance } = setUp();
    firing.next = now() + 100;
    const waiting = lull.reached();
    expect(await settles(waiting)).toBe(false);
    advance(1000);
    expect(await settles(waiting)).toBe(true);
    advance(9000);
    expect(await settles(lull.reached())).toBe(true);
    advance(1000);
    firing.next = now() + 100;
    expect(await settles(lull.reached())).toBe(false);
  });

  it('stops watching an executor that stopped', async () => {
    const { lull, firing, now } = setUp();
    firing.next = now() + 100;
    expect(lull.isNow).toBe(false);
    lull.follow(null);
    expect(lull.isNow).toBe(true);
  });
});
