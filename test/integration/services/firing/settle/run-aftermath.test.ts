import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../../../../src/core.js';
import type { Timer } from '../../../../../src/domain/timer.js';
import { createLogger } from '../../../../../src/observability/logger.js';
import { RunAftermath } from '../../../../../src/services/firing/settle/run-aftermath.js';
import { TimerRepository } from '../../../../../src/storage/db/timer-repository.js';
import { createTestCore, createTestStores, type TestStores } from '../../../../helpers/stores.js';
import { testDraft } from '../../../../helpers/timers.js';

/** What a settled run does to its timer, judged against the timer as MySQL has it. */
let stores: TestStores;
let core: Core;
let timers: TimerRepository;

beforeAll(async () => {
  stores = await createTestStores('aftermath');
  core = createTestCore(stores);
  timers = new TimerRepository(stores.database.db);
});
afterAll(async () => {
  await core?.queues.close();
  await stores?.cleanup();
});

function aftermath(): RunAftermath {
  return new RunAftermath({
    completeTimer: (id, runAt) => core.timers.lifecycle.complete(id, runAt),
    countFailure: async () => 0,
    autoPause: async () => null,
    notifier: { report: async () => undefined, reportPaused: async () => undefined },
    logger: createLogger('silent'),
  });
}

describe('the final run of a timer, settled', () => {
  const last = Date.parse('2030-01-01T10:20:00Z');
  /** Its run at `last` succeeded, as the executor's copy `read` of the timer has it. */
  const settledFinal = (read: Timer) =>
    aftermath().settled({
      timer: read,
      run: { timerId: read.id, runAt: last, slice: 's' },
      status: 'succeeded',
      attempts: 1,
      httpStatus: 200,
      error: null,
    });

  it('completes the timer', async () => {
    const t = await timers.insert(testDraft({ app: 'after', name: 'ends', status: 'active' }));
    await stores.database.pool.query('UPDATE timers SET final_run_at = ? WHERE id = ?', [
      new Date(last),
      t.id,
    ]);
    const read = (await timers.findByIds([t.id]))[0]!;
    await settledFinal(read);
    expect((await timers.findByIds([t.id]))[0]!.status).toBe('completed');
  });

  it('leaves the timer active when a PATCH moved its end on while the run was out', async () => {
    const t = await timers.insert(testDraft({ app: 'after', name: 'extended', status: 'active' }));
    await stores.database.pool.query('UPDATE timers SET final_run_at = ? WHERE id = ?', [
      new Date(last),
      t.id,
    ]);
    // The executor's copy, read before the PATCH: its final run is this one.
    const read = (await timers.findByIds([t.id]))[0]!;
    // The PATCH: endAt later, no final run known yet.
    await stores.database.pool.query(
      'UPDATE timers SET final_run_at = NULL, version = version + 1 WHERE id = ?',
      [t.id],
    );
    await settledFinal(read);
    expect((await timers.findByIds([t.id]))[0]!.status).toBe('active');
  });
});
