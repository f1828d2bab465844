import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/observability/logger.js';
import { API_FIRST_MAX_LOOKS } from '../../../../../src/services/firing/admission/api-first.js';
import {
  CATCH_UP_FLOOR_EVERY,
  CATCH_UP_LOOK_EVERY_MS,
  CATCH_UP_MAX_LAG_MS,
} from '../../../../../src/services/firing/admission/catch-up-throttle.js';
import { LaneFetching, type LaneWorker } from '../../../../../src/services/firing/admission/lane-fetching.js';
import { FIRE_WITHOUT_MYSQL_MS } from '../../../../../src/services/firing/admission/outage-brake.js';

/** A lane worker that records whether it fetches. */
class FakeWorker implements LaneWorker {
  fetching = true;
  calls: string[] = [];
  async pause(): Promise<void> {
    this.fetching = false;
    this.calls.push('pause');
  }
  resume(): void {
    this.fetching = true;
    this.calls.push('resume');
  }
}

/**
 * The look/apply loop over fake workers, a lag, API and outage the test sets, and looks it
 * drives itself (the repeat it is given only records its period).
 */
function lanes() {
  const world = { lag: 0, busy: false, failingMs: 0, lagStarted: false, lagStopped: false };
  const onTime = [new FakeWorker(), new FakeWorker()];
  const late = [new FakeWorker()];
  const repeats: number[] = [];
  let stopped = 0;
  const fetching = new LaneFetching({
    onTime,
    late,
    lag: {
      start: () => {
        world.lagStarted = true;
      },
      sinceLastLook: () => world.lag,
      stop: () => {
        world.lagStopped = true;
      },
    },
    busySinceLastLook: () => world.busy,
    failingFor: () => world.failingMs,
    logger: createLogger('silent'),
    repeat: (_look, ms) => {
      repeats.push(ms);
      return () => stopped++;
    },
  });
  const fetches = () => ({
    onTime: onTime.map((w) => w.fetching),
    late: late.map((w) => w.fetching),
  });
  return { world, onTime, late, fetching, fetches, repeats, stopped: () => stopped };
}

describe('which execute lanes an executor fetches from', () => {
  it('fetches from both while the loop keeps up, and touches no worker', () => {
    const { world, fetching, fetches, onTime, late } = lanes();
    world.lag = CATCH_UP_MAX_LAG_MS;
    world.busy = true;
    fetching.look();
    fetching.look();
    expect(fetches()).toEqual({ onTime: [true, true], late: [true] });
    expect([...onTime, ...late].flatMap((w) => w.calls)).toEqual([]);
  });

  it('stops the catch-up lane while the loop is behind, but for one look in CATCH_UP_FLOOR_EVERY', () => {
    const { world, fetching, fetches, late } = lanes();
    world.lag = CATCH_UP_MAX_LAG_MS + 1;
    const lateFetches: boolean[] = [];
    for (let i = 0; i < 2 * CATCH_UP_FLOOR_EVERY; i++) {
      fetching.look();
      lateFetches.push(fetches().late[0]!);
      expect(fetches().onTime).toEqual([true, true]);
    }
    expect(lateFetches.filter(Boolean)).toHaveLength(2);
    world.lag = 1;
    fetching.look();
    expect(fetching.state).toEqual({ onTime: true, late: true });
    expect(late[0]!.calls.at(-1)).toBe('resume');
  });

  it('stops both lanes while the loop is behind and the API answers requests, for at most API_FIRST_MAX_LOOKS looks', () => {
    const { world, fetching } = lanes();
    world.lag = CATCH_UP_MAX_LAG_MS + 1;
    world.busy = true;
    const onTime: boolean[] = [];
    for (let i = 0; i <= API_FIRST_MAX_LOOKS; i++) {
      fetching.look();
      onTime.push(fetching.state.onTime);
    }
    expect(onTime.slice(0, API_FIRST_MAX_LOOKS)).toEqual(Array(API_FIRST_MAX_LOOKS).fill(false));
    expect(onTime[API_FIRST_MAX_LOOKS]).toBe(true);
  });

  it('fetches again at the first look without requests, whatever the loop does', () => {
    const { world, fetching, fetches } = lanes();
    world.lag = CATCH_UP_MAX_LAG_MS + 1;
    world.busy = true;
    fetching.look();
    expect(fetches().onTime).toEqual([false, false]);
    world.busy = false;
    fetching.look();
    expect(fetches().onTime).toEqual([true, true]);
  });

  it('stops both lanes past the MySQL outage it tolerates, and starts them again once outcomes are taken', () => {
    const { world, fetching, fetches, onTime } = lanes();
    world.failingMs = FIRE_WITHOUT_MYSQL_MS + 1;
    fetching.look();
    expect(fetches()).toEqual({ onTime: [false, false], late: [false] });
    fetching.look();
    // Paused once, not at every look.
    expect(onTime[0]!.calls).toEqual(['pause']);
    world.failingMs = 0;
    fetching.look();
    expect(fetches()).toEqual({ onTime: [true, true], late: [true] });
  });

  it('looks every CATCH_UP_LOOK_EVERY_MS from start to stop, with the loop lag measured meanwhile', () => {
    const { world, fetching, repeats, stopped } = lanes();
    fetching.start();
    expect(repeats).toEqual([CATCH_UP_LOOK_EVERY_MS]);
    expect(world.lagStarted).toBe(true);
    fetching.stop();
    expect(stopped()).toBe(1);
    expect(world.lagStopped).toBe(true);
  });
});
