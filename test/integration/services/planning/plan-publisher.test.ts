import { afterAll, beforeAll, expect, it } from 'vitest';
import { minuteKey } from '../../../../src/domain/plan/slice.js';
import type { Timer } from '../../../../src/domain/timer.js';
import { createLogger } from '../../../../src/observability/logger.js';
import { PlanPublisher } from '../../../../src/services/planning/plan-publisher.js';
import { RunStopper, type StopRequest } from '../../../../src/services/planning/run-stopper.js';
import { AppRepository } from '../../../../src/storage/db/app-repository.js';
import { PlanOutboxRepository } from '../../../../src/storage/db/plan-outbox-repository.js';
import { TaskRepository } from '../../../../src/storage/db/tasks/task-repository.js';
import { TimerRepository } from '../../../../src/storage/db/timer-repository.js';
import { AppCopies } from '../../../../src/storage/redis/app-copies.js';
import { RunClaims } from '../../../../src/storage/redis/runs/run-claims.js';
import { TimerCopies } from '../../../../src/storage/redis/timer-copies.js';
import { createTestCore, createTestStores, eventually, type TestStores } from '../../../helpers/stores.js';
import { testDraft } from '../../../helpers/timers.js';

/** Publishing disables: the answer does not wait on a queue of other timers' stops. */

let stores: TestStores;

beforeAll(async () => {
  stores = await createTestStores('publisher');
});
afterAll(async () => {
  await stores.cleanup();
});

it('answers a wave of disables without waiting for the stops queued behind others, starts a second stop once the wave has passed; each stops after, and its mark clears then', async () => {
  const now = Date.now();
  const timers = new TimerRepository(stores.database.db);
  const tasks = new TaskRepository(stores.database.db, stores.database.pool);
  const outbox = new PlanOutboxRepository(stores.database.pool);
  const made = await Promise.all(
    ['a', 'b', 'c', 'd'].map((name) => timers.insert(testDraft({ app: 'wave', name }))),
  );
  for (const t of made) {
    await stores.database.pool.query(
      "UPDATE timers SET status = 'inactive', version = version + 1, paused_at = ? WHERE id = ?",
      [new Date(now), t.id],
    );
    // Planned runs from ten minutes on: a disable cancels them.
    await tasks.insertRuns(
      [1, 2, 3].map((m) => ({ timerId: t.id, app: 'wave', runAt: now + 600_000 + m * 1000, version: 1 })),
    );
  }
  const disabled = await timers.findByIds(made.map((t) => t.id));
  const marks = await outbox.mark(made.map((t) => t.id));

  // The stopper waits until the test lets it go, as MySQL does during an incident.
  let open: () => void = () => undefined;
  let entered = 0;
  const stoppedAt = new Map<number, number>();
  const gate = new Promise<void>((resolve) => (open = resolve));
  const core = createTestCore(stores);
  const keys = core.keys;
  const stopper = new RunStopper(stores.database, new RunClaims(stores.redis, keys), Date.now);
  const publisher = new PlanPublisher({
    outbox,
    copies: new TimerCopies(stores.redis, keys),
    appCopies: new AppCopies(stores.redis, keys),
    apps: new AppRepository(stores.database.db),
    planner: core.planner,
    stopper: {
      stopMany: async (requests: readonly StopRequest[]) => {
        entered++;
        await gate;
        const done = await stopper.stopMany(requests);
        for (const r of requests) stoppedAt.set(r.timerId, performance.now());
        return done;
      },
    },
    announce: async () => undefined,
    timers,
    tasks,
    stepMinutes: stores.config.migrateStepMinutes,
    stopWaitMs: 60_000,
    logger: createLogger('silent'),
    now: Date.now,
  });
  const answeredAt = new Map<number, number>();
  const publish = (t: (typeof disabled)[number]) =>
    publisher
      .publish({
        marks: marks.filter((m) => m.timerId === t.id),
        timers: [t],
        announce: [t.id],
        change: { planned: [], cancelled: [] },
      })
      .then(() => {
        answeredAt.set(t.id, performance.now());
      });
  const [first, ...wave] = disabled as [Timer, ...Timer[]];
  // The first finds the stops idle: it waits for its own stop.
  const answers = [publish(first)];
  await eventually(() => entered === 1, 'the first stop under way');
  // The rest come while a stop is under way, a wave: each is answered without waiting for
  // its stop, and a second stop begins only once no change has been published for a second.
  answers.push(...wave.map(publish));
  const lastPublished = performance.now();
  await Promise.all(answers.slice(1));
  expect(answeredAt.has(first.id)).toBe(false);
  expect((await outbox.olderThan(now + 60_000, 10)).map((m) => m.timerId).sort()).toEqual(
    made.map((t) => t.id).sort(),
  );
  await eventually(() => entered === 2, 'the second stop under way');
  expect(performance.now() - lastPublished).toBeGreaterThanOrEqual(990);
  open();
  await Promise.all(answers);
  // The one that waited was answered once its runs had stopped.
  expect(stoppedAt.get(first.id)).toBeLessThanOrEqual(answeredAt.get(first.id)!);
  expect(await tasks.countForTimer(first.id, ['pending'])).toBe(0);
  await eventually(async () => (await outbox.olderThan(now + 60_000, 10)).length === 0, 'every mark cleared');
  for (const t of made) expect(await tasks.countForTimer(t.id, ['pending'])).toBe(0);
});

it('leaves to a publication still under way here the mark it is to clear, and repairs the mark once that publication failed', async () => {
  const timers = new TimerRepository(stores.database.db);
  const outbox = new PlanOutboxRepository(stores.database.pool);
  const timer = await timers.insert(testDraft({ app: 'slow', name: 'behind-a-wave' }));
  // Copies reach Redis when the test lets them: the publication's tries then fail, as Redis might.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let failing = true;
  const { publisher, puts } = flakyPublisher(
    timers,
    outbox,
    async () => {
      if (failing) await gate;
      return failing;
    },
    // Every mark is past REPAIR_AFTER_MS by this clock.
    () => Date.now() + 60_000,
  );
  const marks = await outbox.mark([timer.id]);
  const publishing = publisher.publish({
    marks,
    timers: [timer],
    announce: [timer.id],
    change: { planned: [], cancelled: [] },
  });
  await eventually(() => puts() === 1, 'the publication under way');
  expect(await publisher.repair()).toBe(0);
  expect(puts()).toBe(1);
  open();
  await publishing;
  // It failed, tried again a few times: the mark is the repair's now.
  expect(puts()).toBeGreaterThan(2);
  failing = false;
  expect(await publisher.repair()).toBe(1);
  expect(await outbox.olderThan(Date.now() + 60_000, 10)).toEqual([]);
});

/**
 * A publisher over the test's stores whose `n`th write of timer copies Redis refuses when
 * `refuses(n)` says so; `puts()` counts the writes.
 */
function flakyPublisher(
  timers: TimerRepository,
  outbox: PlanOutboxRepository,
  refuses: (n: number) => Promise<boolean>,
  now: () => number = Date.now,
) {
  const core = createTestCore(stores);
  const copies = new TimerCopies(stores.redis, core.keys);
  let puts = 0;
  const publisher = new PlanPublisher({
    outbox,
    copies: {
      put: async (...args: Parameters<TimerCopies['put']>) => {
        if (await refuses(++puts)) throw new Error('Connection is closed.');
        return copies.put(...args);
      },
      forget: (...args: Parameters<TimerCopies['forget']>) => copies.forget(...args),
    },
    appCopies: new AppCopies(stores.redis, core.keys),
    apps: new AppRepository(stores.database.db),
    planner: core.planner,
    stopper: { stopMany: async () => [] },
    announce: async () => undefined,
    timers,
    tasks: new TaskRepository(stores.database.db, stores.database.pool),
    stepMinutes: stores.config.migrateStepMinutes,
    logger: createLogger('silent'),
    now,
  });
  return { core, copies, publisher, puts: () => puts };
}

/** A publisher whose first write of timer copies Redis refuses. */
const refusedOnce = (timers: TimerRepository, outbox: PlanOutboxRepository) =>
  flakyPublisher(timers, outbox, async (n) => n === 1);

it('tries a failed publication again at once: a copy Redis refused once is there when the change is answered', async () => {
  const timers = new TimerRepository(stores.database.db);
  const outbox = new PlanOutboxRepository(stores.database.pool);
  const timer = await timers.insert(testDraft({ app: 'flaky', name: 'refused-once', status: 'inactive' }));
  const { copies, publisher, puts } = refusedOnce(timers, outbox);
  await publisher.publish({
    marks: await outbox.mark([timer.id]),
    timers: [timer],
    announce: [timer.id],
    change: { planned: [], cancelled: [] },
  });
  expect(puts()).toBe(2);
  expect((await copies.get([timer.id]))[0]).toMatchObject({ id: timer.id, status: 'inactive' });
  await eventually(
    async () => (await outbox.olderThan(Date.now() + 60_000, 10)).length === 0,
    'its mark cleared',
  );
});

/**
 * Change A (version 5) plans a run and its publish fails once; change B (version 6) publishes
 * before A's next try: cancelling that run (`overtakes`), changing nothing of the plan
 * (`relabels`), or cancelling only runs of an older plan, read back after a later change
 * (`cancelsOlder`: version 7, runs of version 4).
 * Whether A's run is in its slice after A's next try.
 */
async function afterAnOvertakenTry(
  name: string,
  second: 'overtakes' | 'relabels' | 'cancelsOlder',
): Promise<boolean> {
  const timers = new TimerRepository(stores.database.db);
  const outbox = new PlanOutboxRepository(stores.database.pool);
  const timer = await timers.insert(testDraft({ app: 'flaky', name }));
  const { core, publisher, puts } = refusedOnce(timers, outbox);
  const runAt = Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
  const run = { timerId: timer.id, app: timer.app, runAt, version: 5 };
  const inSlice = async () => {
    const minute = minuteKey(runAt);
    const [count] = await core.slices.bucketCounts([Date.parse(`${minute}:00.000Z`)]);
    if (!count) return false;
    const runs = await core.slices.read(minute, timer.id % count, runAt, runAt + 1);
    return runs.some((r) => r.timerId === timer.id);
  };
  const first = publisher.publish({
    marks: await outbox.mark([timer.id]),
    timers: [{ ...timer, version: 5 }],
    announce: [timer.id],
    change: { planned: [run], cancelled: [] },
  });
  await eventually(() => puts() === 1, 'its first try failed');
  await publisher.publish({
    marks: await outbox.mark([timer.id]),
    timers: [{ ...timer, version: second === 'cancelsOlder' ? 7 : 6 }],
    announce: [timer.id],
    change: {
      planned: [],
      cancelled:
        second === 'overtakes'
          ? [run]
          : second === 'cancelsOlder'
            ? [{ ...run, runAt: runAt + 60_000, version: 4 }]
            : [],
    },
  });
  await first;
  expect(puts()).toBeGreaterThanOrEqual(3);
  return inSlice();
}

it('leaves out, trying a failed publication again, the runs of a version a newer plan published meanwhile', async () => {
  expect(await afterAnOvertakenTry('overtaken', 'overtakes')).toBe(false);
});

it('keeps them when the newer change left the plan alone (a description, a label)', async () => {
  expect(await afterAnOvertakenTry('relabelled', 'relabels')).toBe(true);
});

it('keeps them when the newer change only cancelled runs of an older plan, whatever version it reads back', async () => {
  expect(await afterAnOvertakenTry('cancels-older', 'cancelsOlder')).toBe(true);
});
