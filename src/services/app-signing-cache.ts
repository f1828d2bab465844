import {
  type CallSigning,
  type SigningKey,
  signingKeyOf,
  WebhookSigner,
} from '../callback/webhook-signer.js';
import type { SecretBox } from '../security/secret-box.js';
import type { AppRow } from '../storage/db/app-repository.js';
import { MicroBatcher } from '../storage/micro-batcher.js';

interface Entry {
  signing: CallSigning;
  loadedAt: number;
}

/**
 * The signing keys of each app, for the executor: loaded in batches (one query for
 * the apps of all runs of an instant, not one per run), kept like timers are
 * (TimerCache) and dropped the moment an app change is announced (a rotation reaches
 * every executor at once). If MySQL cannot be read an expired entry is served.
 */
export class AppSigningCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loader: MicroBatcher<string, CallSigning>;

  constructor(
    load: (names: string[]) => Promise<AppRow[]>,
    private readonly box: SecretBox,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.loader = new MicroBatcher(async (names) => {
      const found = new Map((await load([...new Set(names)])).map((row) => [row.name, row]));
      return names.map((name) => {
        const row = found.get(name);
        return row ? this.signingOf(row) : null;
      });
    }, 500);
  }

  /** How callbacks of `app` are signed (null: the app has no record, so they go unsigned). */
  async forApp(app: string): Promise<CallSigning> {
    const cached = this.entries.get(app);
    if (cached && this.now() - cached.loadedAt < this.ttlMs) return cached.signing;
    try {
      const signing = await this.loader.load(app);
      if (this.entries.get(app) === cached) this.entries.set(app, { signing, loadedAt: this.now() });
      return signing;
    } catch (err) {
      if (cached) return cached.signing;
      throw err;
    }
  }

  /** Drops one app (a change was announced), or all (`null`: announcements may have been missed). */
  invalidate(app: string | null): void {
    if (app === null) this.entries.clear();
    else this.entries.delete(app);
  }

  private signingOf(row: AppRow): CallSigning {
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
