import { describe, expect, it } from 'vitest';
import { untilNextTick } from '../../src/services/slice-scheduler.js';

describe('when the scheduler ticks', () => {
  it('ticks half a tick after the whole second, never on it', () => {
    const second = Date.UTC(2026, 10, 23, 18, 0, 0);
    expect(untilNextTick(second, 1000)).toBe(500);
    expect(untilNextTick(second + 499, 1000)).toBe(1);
    expect(untilNextTick(second + 501, 1000)).toBe(999);
  });

  it('waits a whole tick when it is exactly on its phase', () => {
    const second = Date.UTC(2026, 10, 23, 18, 0, 0);
    expect(untilNextTick(second + 500, 1000)).toBe(1000);
  });
});
