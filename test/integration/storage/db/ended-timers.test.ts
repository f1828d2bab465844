import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/** Which active timers the compensator completes: their schedules ended, nothing left to run. */
let stores: TestStores;
let timers: TimerRepository;
const END = Date.parse('2030-01-01T10:00:00Z');

beforeAll(async () => {
  stores = await createTestStores('ended');
  timers = new TimerRepository(stores.database.db);
});
afterAll(async () => {
  await stores?.cleanup();
});

describe('a timer whose endAt has passed', () => {
  it('has ended once no run of it is left, without jitter', async () => {
    const t = await timers.insert(
      testDraft({ app: 'ended', name: 'plain', cron: '0 * * * *', endAt: END, status: 'active' }),
    );
    expect(await timers.endedIds(END + 1, 60_000)).toContain(t.id);
  });

  it('has not ended while its jitter can still put its last run after endAt', async () => {
    const jitterMs = 3_540_000;
    const t = await timers.insert(
      testDraft({
        app: 'ended',
        name: 'jittered',
        cron: '0 * * * *',
        endAt: END,
        jitterMs,
        status: 'active',
      }),
    );
    expect(await timers.endedIds(END + 1, 60_000)).not.toContain(t.id);
    expect(await timers.endedIds(END + jitterMs, 60_000)).toContain(t.id);
  });
});
