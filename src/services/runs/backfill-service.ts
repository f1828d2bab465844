import { auditEntry } from '../../domain/audit.js';
import {
  BACKFILL_MAX_RUNS,
  type Backfill,
  type BackfillProgress,
  backfillState,
} from '../../domain/backfill.js';
import { keptADayFrom } from '../../domain/plan/day-partitions.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import type { OverlapPolicy, Timer } from '../../domain/timer.js';
import { ErrorCode, timerNotFound, XtimerError } from '../../errors.js';
import { BackfillRepository } from '../../storage/db/backfill-repository.js';
import type { Database } from '../../storage/db/client.js';
import { TimerRepository } from '../../storage/db/timer-repository.js';
import type { AuditService } from '../apps/audit-service.js';
import type { AccessScope } from '../timers/access.js';
import type { TimerStore } from '../timers/timer-store.js';

/** How many of a timer's backfills its list shows. */
const LIST_LIMIT = 20;

export interface BackfillRequest {
  from: number;
  to: number;
  overlapPolicy?: OverlapPolicy | undefined;
}

/** What a backfill over a range would do, before it starts. */
export interface BackfillPreview {
  /** The schedule's instants in the range. */
  runs: number;
  /** Those it would run: instants the history has already are left alone. */
  planned: number;
}

/** A backfill and how its runs stand. */
export interface BackfillView {
  backfill: Backfill;
  progress: BackfillProgress;
}

export interface BackfillServiceDeps {
  database: Database;
  audit: AuditService;
  now(): number;
  /**
   * TASK_RETENTION_DAYS: how far back the run history goes. A backfill reaches no further:
   * older runs' rows are gone (a run made then could not be told from a new one) and new
   * ones would be dropped with their day.
   */
  historyDays?: number | undefined;
}

/**
 * Backfills: a timer's schedule run over a past range. Starting one writes
 * its runs (trigger `backfill`) beside the timer's history, leaving alone the instants
 * the history has already; BackfillPacer then sends them at BACKFILL_RATE.
 */
export class BackfillService {
  private readonly backfills: BackfillRepository;

  constructor(
    private readonly deps: BackfillServiceDeps,
    /** Reads a timer the caller may use. */
    private readonly timers: Pick<TimerStore, 'owned'>,
  ) {
    this.backfills = new BackfillRepository(deps.database.db, deps.database.pool);
  }

  /** Runs the schedule over a past range (its runs are paced). */
  async start(scope: AccessScope, timerId: number, req: BackfillRequest): Promise<BackfillView> {
    const given = await this.timers.owned(scope, timerId);
    await scope.spend();
    const by = scope.author;
    // Bad input is refused before any lock is taken.
    this.instants(given, req);
    const id = await this.deps.database.transaction(async (tx) => {
      const backfills = this.backfills.withDb(tx.db, tx.conn);
      // One at a time per timer, and by the timer as it is now (a PATCH or a delete may
      // have committed since it was read): each backfill sees what the one before wrote.
      const timer = await new TimerRepository(tx.db).findById(given.id, { forUpdate: true });
      if (!timer) throw timerNotFound(given.id);
      const instants = this.instants(timer, req);
      // One whose runs have all ended is over, though the pacer has not marked it yet.
      let underway: Backfill | undefined;
      for (const b of await backfills.overlapping(timer.id, req.from, req.to)) {
        if (backfillState(b, await backfills.progress(b)) === 'completed') continue;
        underway = b;
        break;
      }
      if (underway) {
        throw new XtimerError(
          ErrorCode.BACKFILL_OVERLAPS,
          `backfill ${underway.id} of timer ${timer.id} is still under way over part of this range; wait for it or cancel it`,
          [{ path: 'from', message: `overlaps backfill ${underway.id}, which is still under way` }],
        );
      }
      const existing = await backfills.existingRuns(timer.id, req.from, req.to);
      const runAts = instants.filter((at) => !existing.has(at));
      const id = await backfills.insert(
        {
          timerId: timer.id,
          app: timer.app,
          from: req.from,
          to: req.to,
          overlapPolicy: req.overlapPolicy ?? null,
          runs: instants.length,
          createdBy: by?.actor ?? null,
        },
        timer.version,
        runAts,
      );
      if (by) {
        await this.deps.audit.record(
          auditEntry(by, 'backfill', { app: timer.app, timerId: timer.id }, null, {
            backfillId: id,
            from: new Date(req.from).toISOString(),
            to: new Date(req.to).toISOString(),
            runs: runAts.length,
          }),
          tx,
        );
      }
      return id;
    });
    return this.view(given, id);
  }

  /**
   * What `start` would do over the range, changing nothing: refused as `start` refuses it.
   * Not spent on the rate limit: the console asks it as a person picks a range.
   */
  async preview(scope: AccessScope, timerId: number, req: BackfillRequest): Promise<BackfillPreview> {
    const timer = await this.timers.owned(scope, timerId);
    const instants = this.instants(timer, req);
    const existing = await this.backfills.existingRuns(timer.id, req.from, req.to);
    return { runs: instants.length, planned: instants.filter((at) => !existing.has(at)).length };
  }

  async get(scope: AccessScope, timerId: number, id: number): Promise<BackfillView> {
    return this.view(await this.timers.owned(scope, timerId), id);
  }

  /** The timer's backfills, newest first (the latest 20). */
  async list(scope: AccessScope, timerId: number): Promise<BackfillView[]> {
    const timer = await this.timers.owned(scope, timerId);
    const found = await this.backfills.listForTimer(timer.id, LIST_LIMIT);
    return Promise.all(
      found.map(async (backfill) => ({ backfill, progress: await this.backfills.progress(backfill) })),
    );
  }

  /** Stops a backfill: its runs not yet sent are removed; those sent end as they will. */
  async cancel(scope: AccessScope, timerId: number, id: number): Promise<BackfillView> {
    const timer = await this.timers.owned(scope, timerId);
    await scope.spend();
    const by = scope.author;
    await this.deps.database.transaction(async (tx) => {
      const backfills = this.backfills.withDb(tx.db, tx.conn);
      const locked = await backfills.lockOne(id);
      if (locked?.timerId !== timer.id)
        throw new XtimerError(ErrorCode.BACKFILL_NOT_FOUND, `timer ${timer.id} has no backfill ${id}`);
      // One whose runs have all ended stays completed (a run of it a user retried reopens it).
      if (
        locked.stage !== 'sending' &&
        backfillState(locked, await backfills.progress(locked)) === 'completed'
      )
        return;
      const removed = await backfills.cancel(locked, this.deps.now());
      if (removed !== null && by) {
        await this.deps.audit.record(
          auditEntry(by, 'backfill_cancel', { app: timer.app, timerId: timer.id }, null, {
            backfillId: id,
            unsent: removed,
          }),
          tx,
        );
      }
    });
    return this.view(timer, id);
  }

  private async view(timer: Timer, id: number): Promise<BackfillView> {
    const backfill = await this.backfills.find(timer.id, id);
    if (!backfill)
      throw new XtimerError(ErrorCode.BACKFILL_NOT_FOUND, `timer ${timer.id} has no backfill ${id}`);
    return { backfill, progress: await this.backfills.progress(backfill) };
  }

  /**
   * The schedule's instants in `[from, to)`, a range wholly in the past. A `to` after
   * now, an empty range, or one of more than BACKFILL_MAX_RUNS instants is refused.
   */
  private instants(timer: Timer, req: BackfillRequest): number[] {
    if (req.to > this.deps.now()) {
      throw new XtimerError(
        ErrorCode.VALIDATION_FAILED,
        'to: a backfill runs a past range; to must not be after now',
        [{ path: 'to', message: 'must not be after now' }],
      );
    }
    if (req.from >= req.to) {
      throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'from: must be before to', [
        { path: 'from', message: 'must be before to' },
      ]);
    }
    const kept = this.deps.historyDays;
    const keptFrom = kept === undefined ? null : keptADayFrom(this.deps.now(), kept);
    if (keptFrom !== null && req.from < keptFrom) {
      const edge = new Date(keptFrom).toISOString();
      throw new XtimerError(
        ErrorCode.VALIDATION_FAILED,
        `from: the run history keeps ${kept} days (TASK_RETENTION_DAYS) and drops its oldest day next; a backfill starts at ${edge} or later`,
        [{ path: 'from', message: `must be ${edge} or later` }],
      );
    }
    if (timer.at !== null) {
      throw new XtimerError(ErrorCode.VALIDATION_FAILED, 'a one-shot timer has no schedule to backfill', [
        { path: 'id', message: 'is a one-shot timer' },
      ]);
    }
    const instants = scheduleOf(timer)
      .next(req.from - 1, BACKFILL_MAX_RUNS + 1)
      .filter((t) => t < req.to);
    if (instants.length > BACKFILL_MAX_RUNS) {
      throw new XtimerError(
        ErrorCode.BACKFILL_TOO_LARGE,
        `the schedule has more than ${BACKFILL_MAX_RUNS} runs in [from, to); split the range into several backfills`,
        [{ path: 'to', message: `makes a range of more than ${BACKFILL_MAX_RUNS} runs` }],
      );
    }
    return instants;
  }
}
