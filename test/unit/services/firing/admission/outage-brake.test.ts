import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/observability/logger.js';
import {
  FIRE_WITHOUT_MYSQL_MS,
  OutageBrake,
} from '../../../../../src/services/firing/admission/outage-brake.js';

describe('OutageBrake', () => {
  it('stops taking runs past the outage it tolerates, and starts again once MySQL takes outcomes', () => {
    let failing = 0;
    const calls: string[] = [];
    const brake = new OutageBrake({
      failingFor: () => failing,
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
      logger: createLogger('silent'),
    });
    failing = FIRE_WITHOUT_MYSQL_MS;
    brake.look();
    expect(calls).toEqual([]);
    failing = FIRE_WITHOUT_MYSQL_MS + 1;
    brake.look();
    brake.look();
    expect(calls).toEqual(['pause']);
    expect(brake.engaged).toBe(true);
    failing = 0;
    brake.look();
    expect(calls).toEqual(['pause', 'resume']);
    expect(brake.engaged).toBe(false);
  });

  it('stays under the time a finished run is remembered in its claim record', async () => {
    const { RunClaims } = await import('../../../../../src/storage/redis/runs/run-claims.js');
    const keepMs = new RunClaims({} as never, {} as never).keepMs;
    expect(FIRE_WITHOUT_MYSQL_MS).toBeLessThan(keepMs);
  });
});
