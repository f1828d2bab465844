import type { AppRow } from '../db/app-repository.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';
import { SlotBatch } from './slot-batch.js';

/** An app with no record (its callbacks go unsigned), as its copy says. */
const NONE = 'none';

/**
 * What firing needs of an app's record: its signing secrets, which stay sealed
 * (XTIMER_SECRET_KEY), and its default failure notification.
 */
export type AppCopyRow = Pick<
  AppRow,
  'name' | 'signingSecret' | 'prevSigningSecret' | 'prevSigningSecretUntil' | 'notify'
>;

/**
 * Copies of the apps' sealed signing secrets and default notifications in Redis, written
 * whenever an app is read from MySQL for them, so that callbacks are still signed, and
 * failures still reported, while MySQL is away.
 */
export class AppCopies {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
  ) {}

  /** Keeps each app's row, or that it has none. */
  async put(names: readonly string[], rows: readonly AppCopyRow[]): Promise<void> {
    const byName = new Map(rows.map((r) => [r.name, r]));
    const batch = new SlotBatch(this.redis);
    for (const name of names) {
      const row = byName.get(name);
      const key = this.keys.appCopy(name);
      const value = row
        ? JSON.stringify({
            name: row.name,
            signingSecret: row.signingSecret,
            prevSigningSecret: row.prevSigningSecret,
            prevSigningSecretUntil: row.prevSigningSecretUntil?.getTime() ?? null,
            notify: row.notify,
          })
        : NONE;
      batch.on(key).set(key, value);
    }
    if (batch.size > 0) await batch.execOrThrow();
  }

  /** Makes sure each app has a copy, reading those that have none with `load` (MySQL). */
  async ensure(names: readonly string[], load: (names: string[]) => Promise<AppCopyRow[]>): Promise<void> {
    const unique = [...new Set(names)];
    if (unique.length === 0) return;
    const batch = new SlotBatch(this.redis);
    for (const name of unique) {
      const key = this.keys.appCopy(name);
      batch.on(key).exists(key);
    }
    const exists = (await batch.execOrThrow()) as number[];
    const missing = unique.filter((_, i) => exists[i] === 0);
    if (missing.length > 0) await this.put(missing, await load(missing));
  }

  /** Each app's row: null if it has none, undefined if no copy was kept. */
  async get(names: readonly string[]): Promise<Array<AppCopyRow | null | undefined>> {
    const batch = new SlotBatch(this.redis);
    for (const name of names) {
      const key = this.keys.appCopy(name);
      batch.on(key).get(key);
    }
    const raw = (await batch.execOrThrow()) as Array<string | null>;
    return raw.map((r) => {
      if (r === null) return undefined;
      if (r === NONE) return null;
      const row = JSON.parse(r) as Omit<AppCopyRow, 'prevSigningSecretUntil'> & {
        prevSigningSecretUntil: number | null;
      };
      return {
        ...row,
        // A copy written before it carried the default reads as none.
        notify: row.notify ?? null,
        prevSigningSecretUntil:
          row.prevSigningSecretUntil === null ? null : new Date(row.prevSigningSecretUntil),
      };
    });
  }
}
