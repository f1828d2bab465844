import { describe, expect, it } from 'vitest';
import { EventLoopLag } from '../../../src/lib/event-loop-lag.js';

describe('the event loop lag', () => {
  it('reports a stall of the loop at the next look, in ms', async () => {
    const lag = new EventLoopLag();
    lag.start();
    try {
      await new Promise((r) => setTimeout(r, 30));
      const until = Date.now() + 120;
      while (Date.now() < until) {
        // A stall: nothing else runs meanwhile.
      }
      await new Promise((r) => setTimeout(r, 30));
      expect(lag.sinceLastLook()).toBeGreaterThanOrEqual(100);
    } finally {
      lag.stop();
    }
  });
});
