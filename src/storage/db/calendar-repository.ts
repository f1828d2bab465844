import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Calendar } from '../../domain/schedule/calendar.js';
import type { Db } from './client.js';
import { type CalendarRow, calendars } from './schema.js';

function toCalendar(row: CalendarRow): Calendar {
  return {
    app: row.app,
    name: row.name,
    dates: JSON.parse(row.dates) as string[],
    description: row.description,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** An app's calendars in MySQL. `db` may be a transaction. */
export class CalendarRepository {
  constructor(private readonly db: Db) {}

  withDb(db: Db): CalendarRepository {
    return new CalendarRepository(db);
  }

  async find(app: string, name: string): Promise<Calendar | null> {
    const rows = await this.db
      .select()
      .from(calendars)
      .where(and(eq(calendars.app, app), eq(calendars.name, name)));
    return rows[0] ? toCalendar(rows[0]) : null;
  }

  /**
   * `lock`: the rows locked until the transaction ends, `share` for a change that reads
   * the dates (a calendar PUT, which writes the row, waits for it, and it for the PUT),
   * `update` for one that will delete the row.
   */
  async findMany(app: string, names: readonly string[], lock?: 'share' | 'update'): Promise<Calendar[]> {
    if (names.length === 0) return [];
    if (lock === 'share') {
      // MariaDB has no FOR SHARE, the only shared form drizzle writes.
      const [rows] = await this.db.execute(
        sql`SELECT app, name, dates, description,
                   UNIX_TIMESTAMP(created_at) * 1000 AS createdMs, UNIX_TIMESTAMP(updated_at) * 1000 AS updatedMs
              FROM calendars WHERE app = ${app} AND name IN (${sql.join(
                names.map((n) => sql`${n}`),
                sql`, `,
              )}) LOCK IN SHARE MODE`,
      );
      // Read raw, its times come as numbers: made Dates as the builder's reads make them.
      type Raw = Omit<CalendarRow, 'createdAt' | 'updatedAt'> & { createdMs: string; updatedMs: string };
      return (rows as unknown as Raw[]).map(({ createdMs, updatedMs, ...row }) =>
        toCalendar({
          ...row,
          createdAt: new Date(Number(createdMs)),
          updatedAt: new Date(Number(updatedMs)),
        }),
      );
    }
    const query = this.db
      .select()
      .from(calendars)
      .where(and(eq(calendars.app, app), inArray(calendars.name, [...names])));
    const rows = lock === 'update' ? await query.for('update') : await query;
    return rows.map(toCalendar);
  }

  async list(app: string): Promise<Calendar[]> {
    const rows = await this.db
      .select()
      .from(calendars)
      .where(eq(calendars.app, app))
      .orderBy(asc(calendars.name));
    return rows.map(toCalendar);
  }

  /** Creates or replaces the calendar; true if it is new. */
  async put(
    app: string,
    name: string,
    dates: readonly string[],
    description: string | null,
  ): Promise<boolean> {
    const [result] = await this.db
      .insert(calendars)
      .values({ app, name, dates: JSON.stringify(dates), description })
      .onDuplicateKeyUpdate({
        set: { dates: JSON.stringify(dates), description, updatedAt: sql`CURRENT_TIMESTAMP(3)` },
      });
    // MySQL counts 1 affected row for an insert, 2 for an update of an existing row.
    return (result as unknown as { affectedRows: number }).affectedRows === 1;
  }

  async delete(app: string, name: string): Promise<boolean> {
    const [result] = await this.db
      .delete(calendars)
      .where(and(eq(calendars.app, app), eq(calendars.name, name)));
    return (result as unknown as { affectedRows: number }).affectedRows > 0;
  }
}
