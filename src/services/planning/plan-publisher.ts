import { copyTtlMs, planHorizon } from '../../domain/plan/migration-window.js';
import { MINUTE } from '../../domain/plan/slice.js';
import type { Timer } from '../../domain/timer.js';
import { GroupCommit } from '../../lib/group-commit.js';
import type { Logger } from '../../observability/logger.js';
import type { AppRepository } from '../../storage/db/app-repository.js';
import type { Transaction } from '../../storage/db/client.js';
import type { OutboxMark, PlanOutboxRepository } from '../../storage/db/plan-outbox-repository.js';
import type { TaskRepository } from '../../storage/db/tasks/task-repository.js';
import type { TimerRepository } from '../../storage/db/timer-repository.js';
import type { AppCopies } from '../../storage/redis/app-copies.js';
import type { TimerCopies } from '../../storage/redis/timer-copies.js';
import type { PlanChange, RunPlanner } from './run-planner.js';
import type { RunStopper, StopRequest } from './run-stopper.js';

/** A mark this old is taken for a publisher that died or failed, and published again. */
export const REPAIR_AFTER_MS = 10_000;
/** Changes published together at most, and batches on their way at once. */
const PUBLISH_BATCH = 100;
const PUBLISHES_IN_FLIGHT = 4;
/** Tries of a publication before it is left to the repair, and the first wait between them (doubling). */
const PUBLISH_TRIES = 5;
const PUBLISH_RETRY_MS = 100;
/** Marks one repair pass publishes at most. */
const REPAIR_BATCH = 200;
/** Disabled timers stopped together at most, and stops on their way at once. */
const STOP_BATCH = 100;
const STOPS_IN_FLIGHT = 2;
/**
 * A second stop waits until no change has been published for this long: a stop rewrites
 * hundreds of runs, and two at once took MySQL and the api's thread from a wave of
 * disables still coming in. Once the wave has passed, both drain the stops' backlog.
 */
const WAVE_QUIET_MS = 1000;
const STOP_WAIT_MS = 500;

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
  /** How long a disable's answer waits for its stop when nothing is queued before it. */
  stopWaitMs?: number;
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
  /** Made by the repair (tried once). */
  repair?: boolean;
}

/** What a publication's answer may wait for: its disabled timers' stops under way. */
interface Stopping {
  stopped: Promise<void>[];
}

/** A disabled timer whose runs are to stop, with the marks to clear once they have. */
interface Stop {
  request: StopRequest;
  marks: readonly OutboxMark[];
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
  private readonly batches = new GroupCommit<Publication, Stopping>(
    async (ps) => (await this.publishAll(ps)).map((value) => ({ status: 'fulfilled', value })),
    PUBLISH_BATCH,
    PUBLISHES_IN_FLIGHT,
  );
  private readonly stops = new GroupCommit<Stop, void>(
    async (ss) => {
      try {
        if (this.stopsUnderWay++ > 0) await this.waveOver();
        await this.stopAll(ss);
      } finally {
        this.stopsUnderWay--;
      }
      return ss.map(() => ({ status: 'fulfilled', value: undefined }));
    },
    STOP_BATCH,
    STOPS_IN_FLIGHT,
  );
  /** Stop batches begun, waiting for their turn or running. */
  private stopsUnderWay = 0;
  /** When a change was last given to publish: a wave of them is still coming in. */
  private lastPublishAt = 0;
  /** Timers whose stop is queued or under way here: a repair does not queue it again. */
  private readonly stopping = new Set<number>();
  /**
   * Timers with a publication queued or under way here, and how many: behind a wave of
   * disables a mark outlives REPAIR_AFTER_MS while its publisher is only slow, not gone.
   */
  private readonly publishing = new Map<number, number>();
  /**
   * The newest plan of each timer with a publication here (newestPlans): a publication
   * leaves out the runs it planned for an older one, whichever reaches Redis first.
   */
  private readonly newest = new Map<number, number>();

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
  async publish(p: Publication): Promise<void> {
    this.lastPublishAt = Date.now();
    const ids = p.marks.map((m) => m.timerId);
    for (const id of ids) this.publishing.set(id, (this.publishing.get(id) ?? 0) + 1);
    for (const [id, version] of newestPlans(p))
      this.newest.set(id, Math.max(version, this.newest.get(id) ?? 0));
    try {
      const { stopped } = await this.batches.add(p);
      if (stopped.length > 0) await settledWithin(Promise.all(stopped), this.d.stopWaitMs ?? STOP_WAIT_MS);
    } finally {
      for (const id of ids) {
        const left = (this.publishing.get(id) ?? 1) - 1;
        if (left > 0) this.publishing.set(id, left);
        else {
          this.publishing.delete(id);
          this.newest.delete(id);
        }
      }
    }
  }

  /**
   * Publishes a batch; for each publication, the stops of its disabled timers that began
   * at once. A failure is tried again at once, a few times over a second and a half, before
   * the change is left to the repair: until its copy is in Redis, a disabled timer still
   * fires, and the repair comes 10 s later.
   */
  private async publishAll(ps: readonly Publication[]): Promise<Stopping[]> {
    const marks = ps.flatMap((p) => p.marks);
    const begun = new Map<number, Promise<void>>();
    // The repair's own publications are tried once: it goes through hundreds while Redis is away.
    const tries = ps.every((p) => p.repair) ? 1 : PUBLISH_TRIES;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.publishOnce(
          ps.map((p) => this.stillNewest(p)),
          begun,
        );
        break;
      } catch (err) {
        if (attempt < tries) {
          await new Promise((r) => setTimeout(r, PUBLISH_RETRY_MS * 2 ** (attempt - 1)));
          continue;
        }
        this.d.logger.warn(
          { timers: marks.map((m) => m.timerId), err: (err as Error).message },
          'a committed timer change did not reach Redis yet; it is published again within seconds',
        );
        break;
      }
    }
    return ps.map((p) => ({ stopped: p.timers.flatMap((t) => begun.get(t.id) ?? []) }));
  }

  /**
   * `p` without the runs it planned for a timer version older than a plan given to publish
   * since: in one batch, or a batch tried again after a newer one went through, an older
   * plan's runs would otherwise go back into the slices after the newer one took them out.
   */
  private stillNewest(p: Publication): Publication {
    // The repair's runs are MySQL's pending ones, whatever version planned them.
    if (p.repair) return p;
    const planned = p.change.planned.filter((r) => r.version >= (this.newest.get(r.timerId) ?? 0));
    return { ...p, change: { ...p.change, planned } };
  }

  private async publishOnce(ps: readonly Publication[], begun: Map<number, Promise<void>>): Promise<void> {
    const marks = ps.flatMap((p) => p.marks);
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
    await this.d.planner.publish(
      { planned: ps.flatMap((p) => p.change.planned), cancelled: ps.flatMap((p) => p.change.cancelled) },
      this.d.now(),
    );
    // A disabled timer's runs are stopped after the answer: its copy, now in Redis, already
    // keeps every executor from calling them, and an incident's thousands of disables are
    // answered at once instead of waiting on the deletion of their planned runs. Its mark
    // stays until they have stopped, so a process dying first leaves them to the repair.
    const disabled = timers.filter((t) => t.status === 'inactive');
    const stopped = new Set(disabled.map((t) => t.id));
    await this.d.outbox.clear(marks.filter((m) => !stopped.has(m.timerId)));
    // A lone disable is answered once its runs have stopped, as a client reading them next
    // expects; one queued behind others (a wave of them) is answered without waiting.
    for (const t of disabled) {
      this.stopping.add(t.id);
      const atOnce = this.stops.idle && this.stopsUnderWay === 0;
      const stop = this.stops.add({
        request: { timerId: t.id, version: t.version, disabledAt: t.pausedAt ?? this.d.now() },
        marks: marks.filter((m) => m.timerId === t.id),
      });
      if (atOnce) begun.set(t.id, stop);
    }
  }

  /** Resolves once no change has been given to publish for WAVE_QUIET_MS. */
  private async waveOver(): Promise<void> {
    for (let quiet = Date.now() - this.lastPublishAt; quiet < WAVE_QUIET_MS; ) {
      await new Promise((r) => setTimeout(r, WAVE_QUIET_MS - quiet));
      quiet = Date.now() - this.lastPublishAt;
    }
  }

  /** Stops a batch of disabled timers' runs, takes the cancelled ones out of the slices, clears their marks. */
  private async stopAll(ss: readonly Stop[]): Promise<void> {
    try {
      const stopped = await this.d.stopper.stopMany(ss.map((s) => s.request));
      await this.d.planner.publish({ planned: [], cancelled: stopped.flat() }, this.d.now());
      await this.d.outbox.clear(ss.flatMap((s) => s.marks));
    } catch (err) {
      this.d.logger.warn(
        { timers: ss.map((s) => s.request.timerId), err: (err as Error).message },
        "a disabled timer's runs are not stopped yet; the repair stops them within seconds",
      );
    } finally {
      for (const s of ss) this.stopping.delete(s.request.timerId);
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
    // A stop or a publication still queued here is under way, not lost.
    const marks = (await this.d.outbox.olderThan(now - REPAIR_AFTER_MS, REPAIR_BATCH)).filter(
      (m) => !this.stopping.has(m.timerId) && !this.publishing.has(m.timerId),
    );
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
        repair: true,
      });
    }
    this.d.logger.warn(
      { timers: marks.length },
      'timer changes published again after their publisher failed',
    );
    return marks.length;
  }
}

/** Waits for `p` to settle, at most `ms`. */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).catch(
    () => undefined,
  );
  clearTimeout(timer);
}

/**
 * The plan versions a publication stands for, by timer: its planned runs' version; for a
 * change that only cancelled runs, one past theirs (the timer it carries was read after
 * the commit, and a later change may have moved it on); a disabled timer's version; a
 * deleted timer, every one.
 */
function newestPlans(p: Publication): Map<number, number> {
  const plans = new Map<number, number>();
  for (const r of p.change.planned) plans.set(r.timerId, Math.max(r.version, plans.get(r.timerId) ?? 0));
  const cancelled = new Map<number, number>();
  for (const r of p.change.cancelled)
    cancelled.set(r.timerId, Math.max(r.version + 1, cancelled.get(r.timerId) ?? 0));
  for (const [id, version] of cancelled) if (!plans.has(id)) plans.set(id, version);
  for (const t of p.timers) if (!plans.has(t.id) && t.status === 'inactive') plans.set(t.id, t.version);
  for (const id of p.deleted ?? []) plans.set(id, Number.POSITIVE_INFINITY);
  return plans;
}
