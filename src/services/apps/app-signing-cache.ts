import {
  type CallSigning,
  type SigningKey,
  signingKeyOf,
  WebhookSigner,
} from '../../callback/webhook-signer.js';
import { MicroBatcher } from '../../lib/micro-batcher.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { AppCopies, AppCopyRow } from '../../storage/redis/app-copies.js';

interface Entry {
  signing: CallSigning;
  loadedAt: number;
}

/**
 * The signing keys of each app, for the executor: loaded in batches (one query for
 * the apps of all runs of an instant, not one per run), kept like timers are
 * (TimerCache) and dropped the moment an app change is announced (a rotation reaches
 * every executor at once). What MySQL answers is copied to Redis (AppCopies): if MySQL
 * cannot be read, that copy is used, or an expired entry.
 */
export class AppSigningCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loader: MicroBatcher<string, CallSigning | Error>;
  /** Changes announced so far: a load that saw one go by may have read the app before it. */
  private changes = 0;

  constructor(
    load: (names: string[]) => Promise<AppCopyRow[]>,
    private readonly box: SecretBox,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    copies?: Pick<AppCopies, 'get' | 'put'>,
  ) {
    this.loader = new MicroBatcher(async (names) => {
      const unique = [...new Set(names)];
      let rows: Array<AppCopyRow | null | undefined>;
      let unstored: Error | null = null;
      try {
        const found = new Map((await load(unique)).map((row) => [row.name, row]));
        rows = unique.map((name) => found.get(name) ?? null);
        await copies
          ?.put(
            unique,
            rows.filter((r) => r !== null && r !== undefined),
          )
          .catch(() => undefined);
      } catch (err) {
        if (!copies) throw err;
        rows = await copies.get(unique);
        // An app with no copy fails alone: the others' runs go on.
        if (rows.every((r) => r === undefined)) throw err;
        unstored = err as Error;
      }
      const byName = new Map(unique.map((name, i) => [name, rows[i]]));
      return names.map((name) => {
        const row = byName.get(name);
        if (row === undefined) return unstored ?? new Error(`app ${name} could not be read`);
        return row ? this.signingOf(row) : null;
      });
    }, 500);
  }

  /** How callbacks of `app` are signed (null: the app has no record, so they go unsigned). */
  async forApp(app: string): Promise<CallSigning> {
    const cached = this.entries.get(app);
    if (cached && this.now() - cached.loadedAt < this.ttlMs) return cached.signing;
    const changes = this.changes;
    try {
      const signing = await this.loader.load(app);
      if (signing instanceof Error) throw signing;
      // Kept only if no change was announced meanwhile: a rotation's old key would sign for a TTL.
      if (this.changes === changes && this.entries.get(app) === cached)
        this.entries.set(app, { signing, loadedAt: this.now() });
      return signing;
    } catch (err) {
      if (cached) return cached.signing;
      throw err;
    }
  }

  /** Drops one app (a change was announced), or all (`null`: announcements may have been missed). */
  invalidate(app: string | null): void {
    this.changes++;
    if (app === null) this.entries.clear();
    else this.entries.delete(app);
  }

  private signingOf(row: AppCopyRow): CallSigning {
    try {
      const keys: SigningKey[] = [
        { key: signingKeyOf(this.box.open(row.signingSecret, row.name)), validUntil: null },
      ];
      if (row.prevSigningSecret !== null && row.prevSigningSecretUntil !== null) {
        keys.push({
          key: signingKeyOf(this.box.open(row.prevSigningSecret, row.name)),
          validUntil: row.prevSigningSecretUntil.getTime(),
        });
      }
      return { signer: new WebhookSigner(keys, this.now) };
    } catch {
      return {
        refusal: `SIGNING_SECRET_UNREADABLE: the signing secret of app ${row.name} cannot be decrypted; XTIMER_SECRET_KEY differs from the one that stored it`,
      };
    }
  }
}
