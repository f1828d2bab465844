import { auditEntry } from '../../domain/audit.js';
import type { Calendar } from '../../domain/schedule/calendar.js';
import { scheduleOf } from '../../domain/schedule/timer-schedule.js';
import { ErrorCode, XtimerError } from '../../errors.js';
import { NO_CHANGE, type PlanChange } from '../planning/run-planner.js';
import type { AccessScope } from '../timers/access.js';
import type { TimerStore } from '../timers/timer-store.js';

/**
 * An app's calendars: named lists of dates its timers skip (skipCalendars). Changing
 * one re-plans the timers that name it, under the app's mutex.
 */
export class CalendarService {
  constructor(private readonly store: TimerStore) {}

  async get(scope: AccessScope, app: string, name: string): Promise<Calendar> {
    scope.useApp(app);
    return this.find(app, name);
  }

  async list(scope: AccessScope, app: string): Promise<Calendar[]> {
    scope.useApp(app);
    return this.store.calendars.list(app);
  }

  /**
   * Creates or replaces a calendar, and re-plans the future runs of every active timer
   * that names it: runs already planned on a newly listed date are recorded `skipped`
   * (reason `calendar`) and never called, and the rest is planned again without them.
   */
  async put(
    scope: AccessScope,
    app: string,
    name: string,
    body: { dates: readonly string[]; description: string | null },
  ): Promise<{ calendar: Calendar; created: boolean }> {
    scope.useApp(app);
    await scope.spend();
    const by = scope.author;
    const { deps } = this.store;
    const dates = [...new Set(body.dates)].sort();
    const { created, changes, marks } = await this.store.underAppLock(app, () =>
      deps.database.transaction(async (tx) => {
        const now = deps.now();
        const calendars = this.store.calendars.withDb(tx.db);
        const timers = this.store.timersIn(tx);
        const tasks = this.store.tasksIn(tx);
        const before = await calendars.find(app, name);
        const created = await calendars.put(app, name, dates, body.description);
        if (by) {
          const after = { name, dates, description: body.description };
          await deps.audit.record(
            auditEntry(by, 'calendar_put', { app, timerId: null }, before && calendarFields(before), after),
            tx,
          );
        }
        const changes: Array<[number, PlanChange]> = [];
        for (const timer of await timers.usingCalendar(app, name)) {
          // Its other calendars as committed, not as this transaction first saw them.
          const skipDates = await this.store.skipDatesFor(app, timer.skipCalendars, calendars, 'share');
          await timers.update({ ...timer, skipDates });
          const updated = await this.store.lockedTimer(tx, timer.id);
          if (updated.status !== 'active') {
            changes.push([timer.id, NO_CHANGE]);
            continue;
          }
          const schedule = scheduleOf(updated);
          const skipped = await tasks.skipPending(timer.id, now, (runAt) => {
            const by = schedule.skippedBy(schedule.nominalOf(runAt)) ?? schedule.skippedBy(runAt);
            return by === null ? null : `skipped: calendar ${by.join(', ')}`;
          });
          const cancelled = await deps.stopper.cancelFrom(tx, timer.id, now);
          const planned = await deps.planner.plan(
            updated,
            now,
            tasks,
            timers,
            cancelled.length + skipped.length,
          );
          changes.push([timer.id, { planned, cancelled: [...cancelled, ...skipped] }]);
        }
        const marks = await deps.publisher.mark(
          tx,
          changes.map(([id]) => id),
        );
        return { created, changes, marks };
      }),
    );
    await deps.publisher.publish({
      marks,
      timers: await this.store.timers.findByIds(changes.map(([id]) => id)),
      announce: changes.map(([id]) => id),
      change: {
        planned: changes.flatMap(([, c]) => c.planned),
        cancelled: changes.flatMap(([, c]) => c.cancelled),
      },
    });
    return { calendar: await this.find(app, name), created };
  }

  /** Deletes a calendar no timer names (CALENDAR_IN_USE naming them otherwise). */
  async delete(scope: AccessScope, app: string, name: string): Promise<void> {
    scope.useApp(app);
    await scope.spend();
    const { deps } = this.store;
    await this.store.underAppLock(app, () =>
      deps.database.transaction(async (tx) => {
        // The calendar's row before its timers', in the order a PATCH naming it locks them.
        await this.store.calendars.withDb(tx.db).findMany(app, [name], 'update');
        const users = await this.store.timersIn(tx).usingCalendar(app, name);
        if (users.length > 0) {
          throw new XtimerError(
            ErrorCode.CALENDAR_IN_USE,
            `calendar ${name} is named by timers ${users.map((t) => `${t.id} (${t.name})`).join(', ')}; remove it from their skipCalendars first`,
            users.map((t) => ({ path: 'name', message: `named by timer ${t.id} (${t.name})` })),
          );
        }
        const calendars = this.store.calendars.withDb(tx.db);
        const before = await calendars.find(app, name);
        if (!before || !(await calendars.delete(app, name))) {
          throw new XtimerError(ErrorCode.NOT_FOUND, `app ${app} has no calendar ${name}`);
        }
        if (scope.author) {
          await deps.audit.record(
            auditEntry(scope.author, 'calendar_delete', { app, timerId: null }, calendarFields(before), null),
            tx,
          );
        }
      }),
    );
  }

  private async find(app: string, name: string): Promise<Calendar> {
    const calendar = await this.store.calendars.find(app, name);
    if (!calendar) throw new XtimerError(ErrorCode.NOT_FOUND, `app ${app} has no calendar ${name}`);
    return calendar;
  }
}

/** A calendar as its audit entries show it. */
function calendarFields(calendar: Calendar) {
  return { name: calendar.name, dates: calendar.dates, description: calendar.description };
}
