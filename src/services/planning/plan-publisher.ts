import { copyTtlMs, planHorizon } from '../../domain/plan/migration-window.js';
import { MINUTE } from '../../domain/plan/slice.js';
import type { Timer } from '../../domain/timer.js';
import { GroupCommit } from '../../lib/group-commit.js';
import type { Logger } from '../../observability/logger.js';
import type { AppRepository } from '../../storage/db/app-repository.js';
import type { Transaction } from '../../storage/db/client.js';
import type { OutboxMark, PlanOutboxRepository } from '../../storage/db/plan-outbox-repository.js';
import type { TaskRepository } from '../../storage/db/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import type { AppCopies } from '../../storage/redis/app-copies.js';
import type { TimerCopies } from '../../storage/redis/timer-copies.js';
import type { PlanChange, RunPlanner } from './run-planner.js';
import type { RunStopper } from './run-stopper.js';

/** A mark this old is taken for a publisher that died or failed, and published again. */
export const REPAIR_AFTER_MS = 10_000;
/** Changes published together at most, and batches on their way at once. */
const PUBLISH_BATCH = 100;
const PUBLISHES_IN_FLIGHT = 4;
/** Marks one repair pass publishes at most. */
const REPAIR_BATCH = 200;

export interface PlanPublisherDeps {
  outbox: PlanOutboxRepository;
  copies: Pick<TimerCopies, 'put' | 'forget'>;
  /** The apps' signing copies: the apps of published timers must have one. */
  appCopies: Pick<AppCopies, 'ensure'>;
  apps: Pick<AppRepository, 'findMany'>;
  planner: Pick<RunPlanner, 'publish'>;
  /** Stops a disabled timer's runs (its backlog skipped, its future runs cancelled). */
  stopper: Pick<RunStopper, 'stopMany'>;
  /** Tells every process a timer changed (their caches drop it). */
  announce(timerId: number): Promise<void>;
  timers: Pick<TimerRepository, 'findByIds'>;
  tasks: Pick<TaskRepository, 'pendingOfTimer'>;
  stepMinutes: number;
  logger: Logger;
  now(): number;
}

/** A committed change, as it must reach Redis. */
export interface Publication {
  /** The outbox marks its transaction wrote. */
  marks: readonly OutboxMark[];
  /** The changed timers as they are now (their copies). */
  timers: readonly Timer[];
  /** Timers it deleted. */
  deleted?: readonly number[];
  /** Timers whose cached copies must go (all but newly created ones). */
  announce: readonly number[];
  change: PlanChange;
}

/**
 * Takes a committed timer change to Redis: the timers' copies (what executors fire by),
 * the announcement that drops every process's cached copy, and the runs in the slices.
 * The change's transaction marked the timers in the plan outbox; the mark is cleared
 * once all of that is done. A mark left behind (the process died after the commit, or
 * Redis failed) is published again from MySQL by `repair`, run by every migrator.
 */
export class PlanPublisher {
  private readonly ttlMs: number;
  private readonly batches = new GroupCommit<Publication, void>(
    async (ps) => {
      await this.publishAll(ps);
      return ps.map(() => ({ status: 'fulfilled', value: undefined }));
    },
    PUBLISH_BATCH,
    PUBLISHES_IN_FLIGHT,
  );

  constructor(private readonly d: PlanPublisherDeps) {
    this.ttlMs = copyTtlMs(d.stepMinutes);
  }

  /** In the change's transaction: these timers' change must reach Redis. */
  mark(tx: Transaction, timerIds: readonly number[]): Promise<OutboxMark[]> {
    return this.d.outbox.withConn(tx.conn).mark(timerIds);
  }

  /**
   * Once the change has committed. A failure is logged, not thrown: the change stands in
   * MySQL, and the repair publishes it within seconds. Changes committed together are
   * published together (an incident's thousands of disables: a few round trips a batch).
   */
  publish(p: Publication): Promise<void> {
    return this.batches.add(p);
  }

  private async publishAll(ps: readonly Publication[]): Promise<void> {
    const marks = ps.flatMap((p) => p.marks);
    try {
      // The newest copy of a timer changed twice in the batch.
      const newest = new Map<number, Timer>();
      for (const t of ps.flatMap((p) => p.timers)) {
        const seen = newest.get(t.id);
        if (!seen || seen.version < t.version) newest.set(t.id, t);
      }
      const timers = [...newest.values()];
      // Copies first: a cache that drops its entry at the announcement reads the new one.
      await this.d.copies.put(timers, this.ttlMs);
      await this.d.appCopies.ensure(
        timers.map((t) => t.app),
        (names) => this.d.apps.findMany(names),
      );
      const deleted = ps.flatMap((p) => p.deleted ?? []);
      if (deleted.length > 0) await this.d.copies.forget(deleted, this.ttlMs);
      await Promise.all([...new Set(ps.flatMap((p) => p.announce))].map((id) => this.d.announce(id)));
      // A disabled timer's runs go once every executor skips them (its copy says so).
      const stopped = await this.d.stopper.stopMany(
        timers
          .filter((t) => t.status === 'inactive')
          .map((t) => ({ timerId: t.id, version: t.version, disabledAt: t.pausedAt ?? this.d.now() })),
      );
      const change = {
        planned: ps.flatMap((p) => p.change.planned),
        cancelled: [...ps.flatMap((p) => p.change.cancelled), ...stopped.flat()],
      };
      await this.d.planner.publish(change, this.d.now());
      await this.d.outbox.clear(marks);
    } catch (err) {
      this.d.logger.warn(
        { timers: marks.map((m) => m.timerId), err: (err as Error).message },
        'a committed timer change did not reach Redis yet; it is published again within seconds',
      );
    }
  }

  /**
   * Publishes again, from MySQL, the changes whose mark is older than REPAIR_AFTER_MS:
   * the copy (or the deletion), the announcement, a disabled timer's runs stopped, and an
   * active timer's pending runs from the previous minute to the horizon (those due at
   * once are queued). Returns how many.
   */
  async repair(): Promise<number> {
    const now = this.d.now();
    const marks = await this.d.outbox.olderThan(now - REPAIR_AFTER_MS, REPAIR_BATCH);
    if (marks.length === 0) return 0;
    const found = new Map((await this.d.timers.findByIds(marks.map((m) => m.timerId))).map((t) => [t.id, t]));
    const horizon = planHorizon(now, this.d.stepMinutes);
    for (const mark of marks) {
      const timer = found.get(mark.timerId);
      const planned =
        timer && timer.status !== 'inactive'
          ? (await this.d.tasks.pendingOfTimer(mark.timerId, now - 2 * MINUTE, horizon)).map((r) => ({
              ...r,
              app: timer.app,
            }))
          : [];
      await this.publish({
        marks: [mark],
        timers: timer ? [timer] : [],
        deleted: timer ? [] : [mark.timerId],
        announce: [mark.timerId],
        change: { planned, cancelled: [] },
      });
    }
    this.d.logger.warn(
      { timers: marks.length },
      'timer changes published again after their publisher failed',
    );
    return marks.length;
  }
}
