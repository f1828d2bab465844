import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import type { Db } from './client.js';
import { type AppRow, apps } from './schema.js';
import { isDuplicateKey } from './timer-repository.js';

export type { AppRow };

/** Apps in MySQL (docs/security.md). `db` may be a transaction. */
export class AppRepository {
  constructor(private readonly db: Db) {}

  withDb(db: Db): AppRepository {
    return new AppRepository(db);
  }

  /** Inserts the app; false if one of that name exists. */
  async insert(row: { name: string; keyHash: string; signingSecret: string }): Promise<boolean> {
    try {
      await this.db.insert(apps).values(row);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  async find(name: string): Promise<AppRow | null> {
    const rows = await this.db.select().from(apps).where(eq(apps.name, name));
    return rows[0] ?? null;
  }

  /** The app's row, locked until the transaction this repository runs in ends. */
  async findForUpdate(name: string): Promise<AppRow | null> {
    const rows = await this.db.select().from(apps).where(eq(apps.name, name)).for('update');
    return rows[0] ?? null;
  }

  async findMany(names: readonly string[]): Promise<AppRow[]> {
    if (names.length === 0) return [];
    return this.db
      .select()
      .from(apps)
      .where(inArray(apps.name, [...names]));
  }

  async list(): Promise<AppRow[]> {
    return this.db.select().from(apps).orderBy(asc(apps.name));
  }

  /** The app holding this key digest: as its current key, or its previous one still in grace at `now`. */
  /** The app whose current key, or previous key still in its grace (`retired`), has this hash. */
  async findByKeyHash(hash: string, now: number): Promise<{ name: string; retired: boolean } | null> {
    const rows = await this.db
      .select({ name: apps.name, keyHash: apps.keyHash })
      .from(apps)
      .where(
        or(eq(apps.keyHash, hash), and(eq(apps.prevKeyHash, hash), gt(apps.prevKeyUntil, new Date(now)))),
      )
      .limit(1);
    const row = rows[0];
    return row === undefined ? null : { name: row.name, retired: row.keyHash !== hash };
  }

  async update(
    name: string,
    set: Partial<
      Pick<
        AppRow,
        | 'keyHash'
        | 'prevKeyHash'
        | 'prevKeyUntil'
        | 'signingSecret'
        | 'prevSigningSecret'
        | 'prevSigningSecretUntil'
        | 'notify'
      >
    >,
  ): Promise<void> {
    await this.db.update(apps).set(set).where(eq(apps.name, name));
  }
}
