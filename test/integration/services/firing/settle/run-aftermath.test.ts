import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Core, createCore } from '../../../../../src/core.js';
import type { Timer } from '../../../../../src/domain/timer.js';
import { createLogger } from '../../../../../src/observability/logger.js';
import { RunAftermath } from '../../../../../src/services/firing/settle/run-aftermath.js';
import { openDatabase } from '../../../../../src/storage/db/client.js';
import { TimerRepository } from '../../../../../src/storage/db/timer-repository.js';
import { AppCopies } from '../../../../../src/storage/redis/app-copies.js';
import { createKeys } from '../../../../../src/storage/redis/keys.js';
import {
  createTestCore,
  createTestStores,
  MYSQL_SERVER,
  type TestStores,
} from '../../../../helpers/stores.js';
import { TcpProxy } from '../../../../helpers/tcp-proxy.js';
import { testDraft, testTimer } from '../../../../helpers/timers.js';

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

describe('a failed run settled while MySQL is away', () => {
  it("still reports the failure to the app's default notification, from its copy in Redis", async () => {
    const server = new URL(MYSQL_SERVER);
    const proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
    const database = openDatabase(`mysql://root@127.0.0.1:${proxy.port}/${stores.name}`);
    const away = createCore(stores.config, createLogger('silent'), database, stores.redis);
    try {
      const notify = { url: 'http://127.0.0.1:9/notices', on: ['failed', 'missed'] };
      await new AppCopies(stores.redis, createKeys(stores.config.prefix)).put(
        ['outage'],
        [
          {
            name: 'outage',
            signingSecret: 'sealed',
            prevSigningSecret: null,
            prevSigningSecretUntil: null,
            notify: JSON.stringify(notify),
          },
        ],
      );
      proxy.cut();
      const runAt = Date.parse('2030-01-01T10:20:00Z');
      // Its final run: completing the timer needs MySQL, and fails.
      const timer = testTimer({ id: 4242, app: 'outage', notify: null, finalRunAt: runAt });
      const settled = new RunAftermath({
        completeTimer: (id, at) => away.timers.lifecycle.complete(id, at),
        countFailure: async () => 0,
        autoPause: async () => null,
        notifier: away.notifier,
        logger: createLogger('silent'),
      }).settled({
        timer,
        run: { timerId: timer.id, runAt, slice: 's' },
        status: 'failed',
        attempts: 1,
        httpStatus: 500,
        error: null,
      });
      await expect(settled).rejects.toThrow();
      const job = await away.queues.notify.getJob(`${timer.id}_${runAt}_failed_1`);
      expect(job?.data).toMatchObject({ url: notify.url, app: 'outage', event: { type: 'run.failed' } });
    } finally {
      proxy.restore();
      await away.queues.close();
      await database.close();
      await proxy.stop();
    }
  });
});
