import { describe, expect, it } from 'vitest';
import {
  CATCH_UP_FLOOR_EVERY,
  CATCH_UP_MAX_LAG_MS,
  CatchUpThrottle,
} from '../../../../../src/services/firing/admission/catch-up-throttle.js';

/** A throttle over a lag the test sets, recording what it told the lane. */
function throttle() {
  const state = { lag: 0, calls: [] as string[] };
  const t = new CatchUpThrottle({
    lagSinceLastLook: () => state.lag,
    pause: () => state.calls.push('pause'),
    resume: () => state.calls.push('resume'),
  });
  return { state, t };
}

describe('the catch-up lane', () => {
  it('is worked while the event loop keeps up', () => {
    const { state, t } = throttle();
    state.lag = CATCH_UP_MAX_LAG_MS;
    t.look();
    t.look();
    expect(state.calls).toEqual([]);
    expect(t.isPaused).toBe(false);
  });

  it('is paused once the loop falls behind', () => {
    const { state, t } = throttle();
    state.lag = CATCH_UP_MAX_LAG_MS + 1;
    t.look();
    expect(state.calls).toEqual(['pause']);
    expect(t.isPaused).toBe(true);
  });

  it('is still worked one look in CATCH_UP_FLOOR_EVERY while the loop stays behind', () => {
    const { state, t } = throttle();
    state.lag = 400;
    const worked: boolean[] = [];
    for (let i = 0; i < 2 * CATCH_UP_FLOOR_EVERY; i++) {
      t.look();
      worked.push(!t.isPaused);
    }
    expect(worked.filter(Boolean)).toHaveLength(2);
    expect(worked[CATCH_UP_FLOOR_EVERY - 1]).toBe(true);
    expect(state.calls.slice(0, 3)).toEqual(['pause', 'resume', 'pause']);
  });

  it('is worked again as soon as the loop keeps up again', () => {
    const { state, t } = throttle();
    state.lag = 400;
    t.look();
    state.lag = 3;
    t.look();
    t.look();
    expect(state.calls).toEqual(['pause', 'resume']);
    expect(t.isPaused).toBe(false);
  });
});
