import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskKey } from '../../../../../src/domain/plan/task-key.js';
import { createLogger } from '../../../../../src/observability/logger.js';
import { RunRecorder } from '../../../../../src/services/firing/settle/run-recorder.js';
import { type Database, openDatabase } from '../../../../../src/storage/db/client.js';
import { type RunOutcome, TaskRepository } from '../../../../../src/storage/db/tasks/task-repository.js';
import { createKeys } from '../../../../../src/storage/redis/keys.js';
import { OutcomeStash } from '../../../../../src/storage/redis/runs/outcome-stash.js';
import { createTestStores, eventually, MYSQL_SERVER, type TestStores } from '../../../../helpers/stores.js';
import { TcpProxy } from '../../../../helpers/tcp-proxy.js';

/**
 * Outcomes a process could not write to MySQL (it is cut off through a proxy) live on in
 * Redis: a failed write copies them to the stash, a stop hands over what is left, and
 * whoever drains the stash writes them once MySQL answers.
 */
let stores: TestStores;
let proxy: TcpProxy;
let cutOff: Database;
let stash: OutcomeStash;
const T0 = Date.parse('2030-07-01T10:00:00Z');

beforeAll(async () => {
  stores = await createTestStores('stash');
  const server = new URL(MYSQL_SERVER);
  proxy = await new TcpProxy(server.hostname, Number(server.port || 3306)).start();
  cutOff = openDatabase(`mysql://root@127.0.0.1:${proxy.port}/${stores.name}`, { connectTimeout: 1000 });
  stash = new OutcomeStash(stores.redis, createKeys(stores.config.prefix).outcomeStash());
  await new TaskRepository(stores.database.db, stores.database.pool).insertRuns(
    [1, 2, 3].map((i) => ({ timerId: i, app: 'a', runAt: T0, version: 1 })),
  );
});
afterAll(async () => {
  await cutOff.close().catch(() => undefined);
  await proxy.stop();
  await stores.cleanup();
});

function succeeded(timerId: number): RunOutcome {
  return {
    timerId,
    runAt: T0,
    status: 'succeeded',
    attempts: 1,
    httpStatus: 200,
    output: 'ok',
    error: null,
    firedAt: T0 + 2,
    durationMs: 5,
    leaseUntil: null,
  };
}

describe('outcomes MySQL cannot take', () => {
  it('are kept in Redis when a write fails and when the recorder stops, and written by a drain', async () => {
    const tasks = new TaskRepository(cutOff.db, cutOff.pool);
    const recorder = new RunRecorder((o) => tasks.recordOutcomes(o), createLogger('silent'), {}, stash);
    proxy.cut();
    recorder.record(succeeded(1));
    recorder.record(succeeded(2));
    // The first write fails: both are in the stash at once, while the recorder keeps retrying.
    await eventually(async () => (await stash.size()) === 2, 'stashed after a failed write', 10_000);
    recorder.record(succeeded(3));
    expect(await recorder.stop(300)).toBe(0);
    expect(await stash.size()).toBe(3);

    const direct = new TaskRepository(stores.database.db, stores.database.pool);
    expect(await stash.drain((o) => direct.recordOutcomes(o))).toBe(3);
    const states = await direct.states([1, 2, 3].map((timerId) => ({ timerId, runAt: T0 })));
    expect([1, 2, 3].map((i) => states.get(taskKey(i, T0))?.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(await stash.size()).toBe(0);
    proxy.restore();
  });

  it('leave the stash once the recorder itself gets them written', async () => {
    const tasks = new TaskRepository(cutOff.db, cutOff.pool);
    const recorder = new RunRecorder((o) => tasks.recordOutcomes(o), createLogger('silent'), {}, stash);
    proxy.cut();
    recorder.record({ ...succeeded(1), attempts: 2 });
    await eventually(async () => (await stash.size()) === 1, 'stashed', 10_000);
    proxy.restore();
    await eventually(async () => (await stash.size()) === 0, 'written and unstashed', 15_000, 200);
    await recorder.stop();
  });
});
