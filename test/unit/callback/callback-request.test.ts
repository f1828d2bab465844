import { describe, expect, it } from 'vitest';
import { prepareCall } from '../../../src/callback/callback-request.js';
import { scheduleOf } from '../../../src/domain/schedule/timer-schedule.js';
import { testTimer } from '../../helpers/timers.js';

/** The headers a receiver reads of a run, whatever made it. */
describe("a jittered timer's call", () => {
  const timer = testTimer({ cron: '0 * * * * *', timezone: 'UTC', jitterMs: 59_000 });
  const nominal = Date.UTC(2030, 0, 1, 0, 0, 0);
  const [shifted] = scheduleOf(timer).next(nominal - 1, 1);

  it('names the unshifted instant as X-Xtimer-Nominal-At, for a retry and a backfill too', () => {
    expect(shifted).toBeGreaterThan(nominal);
    for (const trigger of ['schedule', 'retry', 'backfill'] as const) {
      const call = prepareCall(timer, `42_${shifted}`, shifted!, 1, null, trigger);
      expect(call.headers['x-xtimer-scheduled-at'], trigger).toBe(String(shifted));
      expect(call.headers['x-xtimer-nominal-at'], trigger).toBe(String(nominal));
    }
  });

  it('names its own instant for a run now, which no schedule made', () => {
    const now = nominal + 12_345;
    expect(prepareCall(timer, `42_${now}`, now, 1, null, 'manual').headers['x-xtimer-nominal-at']).toBe(
      String(now),
    );
  });
});
