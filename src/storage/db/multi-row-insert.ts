import { getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { MySqlTable } from 'drizzle-orm/mysql-core';
import { escape as escapeSql } from 'mysql2';
import { utcDateTime } from '../../lib/utc-text.js';

/** A value as a raw INSERT writes it. */
export type SqlValue = string | number | Date | null;

/** MySQL's DATETIME(3) literal of an epoch-ms instant (UTC). */
export function sqlDateTime(ms: number): string {
  return utcDateTime(ms);
}

export function sqlLiteral(v: SqlValue): string {
  if (v === null) return 'NULL';
  if (v instanceof Date) return `'${sqlDateTime(v.getTime())}'`;
  return typeof v === 'number' ? String(v) : escapeSql(v);
}

/**
 * One INSERT of many rows as raw SQL, for the create path: drizzle's insert builder costs
 * ~12 µs a row. Rows are keyed by the table's property names; every row has the first
 * row's keys, and columns left out take their defaults.
 */
export function multiRowInsert<T extends MySqlTable>(
  table: T,
  rows: ReadonlyArray<Partial<Record<keyof T['_']['columns'], SqlValue>>>,
): SQL {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  const keys = Object.keys(rows[0] ?? {}) as Array<keyof T['_']['columns'] & string>;
  const names = keys.map((k) => `\`${columns[k]!.name}\``).join(',');
  const values = rows.map((row) => `(${keys.map((k) => sqlLiteral(row[k] ?? null)).join(',')})`).join(',');
  return sql.raw(`INSERT INTO \`${getTableName(table)}\` (${names}) VALUES ${values}`);
}
