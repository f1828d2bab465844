import { dayKey } from '../../../domain/plan/slice.js';
import { groupBy } from '../../../lib/group-by.js';
import { MicroBatcher } from '../../../lib/micro-batcher.js';
import type { Keys } from '../keys.js';
import type { ScriptedRedis } from '../scripts.js';
import { SlotBatch } from '../slot-batch.js';
import { type BloomAnswer, type BloomSettings, bloomOffsets, DEFAULT_BLOOM } from './bloom.js';
import { type ClaimRecord, type FinalStatus, parseClaimRecord } from './claim-record.js';

export type { FinalStatus } from './claim-record.js';

export type ClaimResult =
  | { outcome: 'claimed'; attempt: number; leaseUntil: number; bloom: BloomAnswer | null }
  | { outcome: 'done'; attempt: number; status: FinalStatus }
  /** Held by a live owner (`running`), or backing off until `untilMs` (`backoff`). */
  | { outcome: 'busy'; attempt: number; untilMs: number; state: 'running' | 'backoff' };

/** What renewing a lease found: still ours, written again after Redis lost it, or someone else's. */
export type RenewResult = 'held' | 'reasserted' | 'lost';

/** A run as the claim records know it: its task key and due time (whose day tags its keys). */
export interface RunRef {
  key: string;
  runAt: number;
}

interface ClaimRequest extends RunRef {
  owner: string;
  leaseMs: number;
  minAttempt: number;
}

interface RenewRequest extends RunRef {
  owner: string;
  attempt: number;
  leaseMs: number;
}

interface CallRequest extends RunRef {
  owner: string;
  attempt: number;
  untilMs: number;
}

interface FinishRequest extends RunRef {
  owner: string;
  attempt: number;
  status: FinalStatus;
}

export interface RunClaimsOptions {
  /**
   * How long a record outlives its lease or its finish: past any slice retake and past
   * the compensator's first look at a run whose MySQL write was lost, after which the
   * bloom filter and MySQL answer.
   */
  keepMs: number;
  /** How early a backoff may be claimed: the retry job's clock and Redis's may differ a little. */
  backoffSlackMs: number;
  bloom: BloomSettings;
  /** The scripts' clock: Redis TIME unless a test injects its own. */
  now?: (() => number) | undefined;
}

const DEFAULTS: RunClaimsOptions = { keepMs: 6 * 60_000, backoffSlackMs: 1000, bloom: DEFAULT_BLOOM };

/** Runs per script call: bounded so one call never blocks Redis for long. */
const SCRIPT_BATCH = 500;

/**
 * Claim records of runs (claim-record.ts): one executor at a time per run, attempt
 * numbers that survive a crash, leases that live holders renew (so only a gone holder's
 * lease lapses), and the outcome of a finished run, which stops re-fanned copies from
 * calling it again. Every renew, finish and release is fenced by owner + attempt.
 * Requests made in the same tick go to Redis together, one script call per day, which
 * also read and set the day's bloom filter.
 */
export class RunClaims {
  private readonly claims: MicroBatcher<ClaimRequest, ClaimResult>;
  private readonly renewals: MicroBatcher<RenewRequest, RenewResult>;
  private readonly finishes: MicroBatcher<FinishRequest, boolean>;
  private readonly calls: MicroBatcher<CallRequest, boolean>;
  private readonly options: RunClaimsOptions;

  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    options: Partial<RunClaimsOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.claims = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.claimBatch(day, batch)),
      5000,
    );
    this.renewals = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.renewBatch(day, batch)),
      5000,
    );
    this.finishes = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.finishBatch(day, batch)),
      5000,
    );
    this.calls = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.callBatch(day, batch)),
      5000,
    );
  }

  get keepMs(): number {
    return this.options.keepMs;
  }

  /**
   * Claims the run's next attempt for `owner`, one past the record's or `minAttempt`
   * (the attempts MySQL knows of, when Redis lost the record). At attempt 1 of a run due
   * already the result says what the bloom filter knows of it ('no': it certainly never
   * ran); of a run not yet due, nothing (null).
   */
  claim(run: RunRef, owner: string, leaseMs: number, minAttempt = 0): Promise<ClaimResult> {
    // Field by field, here and below: spreading the caller's ref (of any shape) is V8's slow generic copy.
    return this.claims.load({ key: run.key, runAt: run.runAt, owner, leaseMs, minAttempt });
  }

  /** The holder's heartbeat: extends its lease (or writes the record again if Redis lost it). */
  renew(run: RunRef, owner: string, attempt: number, leaseMs: number): Promise<RenewResult> {
    return this.renewals.load({ key: run.key, runAt: run.runAt, owner, attempt, leaseMs });
  }

  /** Records the run's outcome and marks it in the bloom filter; false if `owner` no longer holds `attempt`. */
  finish(run: RunRef, owner: string, attempt: number, status: FinalStatus): Promise<boolean> {
    return this.finishes.load({ key: run.key, runAt: run.runAt, owner, attempt, status });
  }

  /**
   * The attempt failed and will be retried after `delayMs`: the claim becomes a backoff
   * that the retry claims. Returns when the backoff ends (Redis clock), or null if
   * `owner` no longer holds `attempt`.
   */
  async backOff(run: RunRef, owner: string, attempt: number, delayMs: number): Promise<number | null> {
    const retryAt = await this.redis.backOffRun(
      this.keyOf(run),
      owner,
      attempt,
      Math.round(delayMs),
      this.options.keepMs,
      this.clock(),
    );
    return retryAt > 0 ? retryAt : null;
  }

  /**
   * Ends this owner's lease at once. Unless the call was made (`attemptMade`), the claimed
   * attempt is undone: the next claim is the same attempt again.
   */
  async release(
    run: RunRef,
    owner: string,
    attempt: number,
    how: { attemptMade: boolean },
  ): Promise<boolean> {
    return (await this.redis.releaseRun(this.keyOf(run), owner, attempt, how.attemptMade ? 0 : 1)) === 1;
  }

  /**
   * Marks the claim as called: `owner` is sending `attempt`. From then on a takeover is
   * the next attempt; before, the same one (no call was made). False if another holder
   * took the run over. A record Redis lost is written again, leased to `untilMs` (the
   * holder's lease stands). Requests made in the same tick go to Redis together.
   */
  markCalled(run: RunRef, owner: string, attempt: number, untilMs: number): Promise<boolean> {
    return this.markCalling(run, owner, attempt, untilMs).answer;
  }

  /** As markCalled; `sent` settles once the mark is handed to the Redis client (written while connected). */
  markCalling(
    run: RunRef,
    owner: string,
    attempt: number,
    untilMs: number,
  ): { sent: Promise<void>; answer: Promise<boolean> } {
    const { sent, result } = this.calls.loadSent({
      key: run.key,
      runAt: run.runAt,
      owner,
      attempt,
      untilMs: Math.round(untilMs),
    });
    return { sent, answer: result };
  }

  /**
   * After Redis lost its data: writes the outcomes of runs finished here whose outcome
   * MySQL does not have yet, so their copies fanned out again find them done (a copy
   * claimed meanwhile but not calling loses its claim). Returns how many were written.
   */
  async reassertFinished(
    runs: ReadonlyArray<RunRef & { attempt: number; status: FinalStatus }>,
  ): Promise<number> {
    let written = 0;
    await this.perDay([...runs], async (day, batch) => {
      const keys = batch.map((r) => this.keys.claim(day, r.key));
      const args: (string | number)[] = [this.options.keepMs];
      for (const r of batch) args.push(r.attempt, r.status);
      written += await this.redis.reassertFinished(keys.length, ...keys, ...args);
      return batch.map(() => undefined);
    });
    return written;
  }

  /**
   * Reopens a finished run for a retry after `attempts` calls: the record becomes a
   * backoff ending now, which the retry claims as attempt attempts + 1. False if the run
   * is held or backing off.
   */
  async reopen(run: RunRef, attempts: number): Promise<boolean> {
    return (await this.redis.reopenRun(this.keyOf(run), attempts, this.options.keepMs, this.clock())) === 1;
  }

  /**
   * The claim records of several runs (null where there is none), one pipelined GET each.
   * A failed GET throws: read as "no record", it would pass a held run for a lost one.
   */
  async peek(runs: readonly RunRef[]): Promise<Array<ClaimRecord | null>> {
    if (runs.length === 0) return [];
    const batch = new SlotBatch(this.redis);
    for (const run of runs) {
      const key = this.keyOf(run);
      batch.on(key).get(key);
    }
    return (await batch.execOrThrow()).map((record) => parseClaimRecord(record as string | null));
  }

  private clock(): number {
    return this.options.now ? Math.floor(this.options.now()) : 0;
  }

  private keyOf(run: RunRef): string {
    return this.keys.claim(dayKey(run.runAt), run.key);
  }

  /** Splits requests by day (and into bounded batches) and puts the results back in order. */
  private async perDay<R extends RunRef, O>(
    requests: R[],
    call: (day: string, batch: R[]) => Promise<O[]>,
  ): Promise<O[]> {
    // Nearly always so: one tick's requests, all of today.
    if (requests.length > 0 && requests.length <= SCRIPT_BATCH) {
      const day = dayKey(requests[0]!.runAt);
      if (requests.every((r) => dayKey(r.runAt) === day)) return call(day, requests);
    }
    const results = new Array<O>(requests.length);
    const indexed = requests.map((r, i) => ({ r, i }));
    await Promise.all(
      [...groupBy(indexed, (x) => dayKey(x.r.runAt))].flatMap(([day, items]) => {
        const calls: Promise<void>[] = [];
        for (let s = 0; s < items.length; s += SCRIPT_BATCH) {
          const slice = items.slice(s, s + SCRIPT_BATCH);
          calls.push(
            call(
              day,
              slice.map((x) => x.r),
            ).then((out) => {
              slice.forEach((x, j) => {
                results[x.i] = out[j]!;
              });
            }),
          );
        }
        return calls;
      }),
    );
    return results;
  }

  private async claimBatch(day: string, batch: ClaimRequest[]): Promise<ClaimResult[]> {
    const { bloom, keepMs, backoffSlackMs } = this.options;
    const keys = [this.keys.bloom(day), ...batch.map((r) => this.keys.claim(day, r.key))];
    const args: (string | number)[] = [keepMs, bloom.hashes, this.clock(), backoffSlackMs];
    // The filter is asked only about runs due already: of one claimed ahead of its time
    // the claimer never needs the answer, and the bits cost Redis a third of the claim.
    const now = (this.options.now ?? Date.now)();
    for (const r of batch) {
      args.push(r.owner, Math.round(r.leaseMs), r.runAt, r.minAttempt);
      if (r.runAt <= now) args.push(bloom.hashes, ...bloomOffsets(r.key, bloom));
      else args.push(0);
    }
    const flat = await this.redis.claimRuns(keys.length, ...keys, ...args);
    return batch.map((_, i) => {
      const [outcome, attempt, until, state, bloomAnswer] = flat.slice(i * 5, i * 5 + 5);
      if (outcome === 'claimed') {
        return {
          outcome,
          attempt: Number(attempt),
          leaseUntil: Number(until),
          bloom: bloomAnswer === '' ? null : (bloomAnswer as BloomAnswer),
        };
      }
      if (outcome === 'busy') {
        return {
          outcome,
          attempt: Number(attempt),
          untilMs: Number(until),
          state: state as 'running' | 'backoff',
        };
      }
      return { outcome: 'done', attempt: Number(attempt), status: state as FinalStatus };
    });
  }

  private async renewBatch(day: string, batch: RenewRequest[]): Promise<RenewResult[]> {
    const keys = batch.map((r) => this.keys.claim(day, r.key));
    const args: (string | number)[] = [this.options.keepMs, this.clock()];
    for (const r of batch) args.push(r.owner, r.attempt, Math.round(r.leaseMs));
    return (await this.redis.renewRuns(keys.length, ...keys, ...args)) as RenewResult[];
  }

  private async callBatch(day: string, batch: CallRequest[]): Promise<boolean[]> {
    const keys = batch.map((r) => this.keys.claim(day, r.key));
    const args: (string | number)[] = [this.options.keepMs];
    for (const r of batch) args.push(r.owner, r.attempt, r.untilMs);
    const out = await this.redis.markCalled(keys.length, ...keys, ...args);
    return out.map((n) => n !== 0);
  }

  private async finishBatch(day: string, batch: FinishRequest[]): Promise<boolean[]> {
    const { bloom, keepMs } = this.options;
    const keys = [this.keys.bloom(day), ...batch.map((r) => this.keys.claim(day, r.key))];
    // A day whose runs are older than a filter lives (a backfill's) gets none: its filter
    // would be made just for them, 16 MiB a day. Their copies are told apart by MySQL.
    const marked = batch.some((r) => r.runAt >= (this.options.now ?? Date.now)() - bloom.ttlMs);
    const hashes = marked ? bloom.hashes : 0;
    const args: (string | number)[] = [keepMs, marked ? bloom.ttlMs : 0, hashes, this.clock()];
    for (const r of batch)
      args.push(r.owner, r.attempt, r.status, ...(marked ? bloomOffsets(r.key, bloom) : []));
    const out = await this.redis.finishRuns(keys.length, ...keys, ...args);
    return out.map((n) => n === 1);
  }
}
