import { groupBy } from '../../domain/group-by.js';
import { dayKey } from '../../domain/slice.js';
import type { TaskStatus } from '../../domain/timer.js';
import { MicroBatcher } from '../micro-batcher.js';
import { type BloomAnswer, type BloomSettings, bloomOffsets, DEFAULT_BLOOM } from './bloom.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';

export type FinalStatus = Exclude<TaskStatus, 'pending' | 'running'>;

export type ClaimResult =
  | { outcome: 'claimed'; attempt: number; leaseUntil: number; bloom: BloomAnswer | null }
  | { outcome: 'done'; attempt: number; status: FinalStatus }
  | { outcome: 'busy'; attempt: number; leaseUntil: number };

/** A run as the claim records know it: its task key and due time (whose day tags its keys). */
export interface RunRef {
  key: string;
  runAt: number;
}

interface ClaimRequest extends RunRef {
  owner: string;
  leaseMs: number;
}

interface FinishRequest extends RunRef {
  owner: string;
  attempt: number;
  status: FinalStatus;
}

/** Runs per script call: bounded so one call never blocks Redis for long. */
const SCRIPT_BATCH = 500;

/**
 * Claim records of runs in flight: one executor at a time per run, attempt numbers
 * that survive a crash (a lapsed lease is taken over with the next attempt), and the
 * outcome of a finished run, which stops re-fanned copies (takeover, compensator) from
 * calling it again. Claims and finishes made in the same tick go to Redis together, one
 * script call per day (claim-runs.lua, finish-runs.lua), which also read and set the
 * day's bloom filter.
 */
export class RunClaims {
  private readonly claims: MicroBatcher<ClaimRequest, ClaimResult>;
  private readonly finishes: MicroBatcher<FinishRequest, boolean>;

  /**
   * @param keepMs how long a record outlives its lease or its finish: past any slice
   * retake and past the compensator's first look at a run whose MySQL write was lost,
   * after which the bloom filter and MySQL answer.
   */
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly keepMs = 6 * 60_000,
    private readonly bloom: BloomSettings = DEFAULT_BLOOM,
  ) {
    this.claims = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.claimBatch(day, batch)),
      5000,
    );
    this.finishes = new MicroBatcher(
      (requests) => this.perDay(requests, (day, batch) => this.finishBatch(day, batch)),
      5000,
    );
  }

  /**
   * Claims the run's next attempt for `owner`. At attempt 1 the result says what the
   * bloom filter knows of the run ('no': it certainly never ran).
   */
  claim(run: RunRef, owner: string, leaseMs: number): Promise<ClaimResult> {
    return this.claims.load({ ...run, owner, leaseMs });
  }

  /** Records the run's outcome and marks it in the bloom filter; false if another owner had taken it over. */
  finish(run: RunRef, owner: string, attempt: number, status: FinalStatus): Promise<boolean> {
    return this.finishes.load({ ...run, owner, attempt, status });
  }

  /**
   * Is this owner's claim still standing, right before the call goes out? 'lost' when
   * the record is gone (Redis lost its data), 'taken' when another owner holds or finished
   * the run — then this copy must not be sent.
   */
  async verify(run: RunRef, owner: string): Promise<'mine' | 'lost' | 'taken'> {
    const record = await this.redis.get(this.keyOf(run));
    if (record === null) return 'lost';
    const [state, , , holder] = record.split('|', 4);
    return state === 'running' && holder === owner ? 'mine' : 'taken';
  }

  /** The claim records of several runs (null where there is none), one pipelined GET each. */
  async peek(
    runs: readonly RunRef[],
  ): Promise<Array<{ state: 'running' | FinalStatus; attempt: number; leaseUntil: number } | null>> {
    if (runs.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const run of runs) pipeline.get(this.keyOf(run));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, record]) => {
      if (err || typeof record !== 'string') return null;
      const [state, attempt, lease] = record.split('|', 3);
      return { state: state as 'running' | FinalStatus, attempt: Number(attempt), leaseUntil: Number(lease) };
    });
  }

  /** Ends this owner's lease at once (shutdown); `attemptMade` false undoes the claimed attempt. */
  async release(run: RunRef, owner: string, attemptMade: boolean): Promise<void> {
    await this.redis.releaseRun(this.keyOf(run), owner, attemptMade ? 0 : 1);
  }

  private keyOf(run: RunRef): string {
    return this.keys.claim(dayKey(run.runAt), run.key);
  }

  /** Splits requests by day (and into bounded batches) and puts the results back in order. */
  private async perDay<R extends RunRef, O>(
    requests: R[],
    call: (day: string, batch: R[]) => Promise<O[]>,
  ): Promise<O[]> {
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
    const keys = [this.keys.bloom(day), ...batch.map((r) => this.keys.claim(day, r.key))];
    const args: (string | number)[] = [this.keepMs, this.bloom.hashes];
    for (const r of batch)
      args.push(r.owner, Math.round(r.leaseMs), r.runAt, ...bloomOffsets(r.key, this.bloom));
    const flat = await this.redis.claimRuns(keys.length, ...keys, ...args);
    return batch.map((_, i) => {
      const [outcome, attempt, lease, status, bloom] = flat.slice(i * 5, i * 5 + 5);
      if (outcome === 'claimed') {
        return {
          outcome,
          attempt: Number(attempt),
          leaseUntil: Number(lease),
          bloom: bloom === '' ? null : (bloom as BloomAnswer),
        };
      }
      if (outcome === 'busy') return { outcome, attempt: Number(attempt), leaseUntil: Number(lease) };
      return { outcome: 'done', attempt: Number(attempt), status: status as FinalStatus };
    });
  }

  private async finishBatch(day: string, batch: FinishRequest[]): Promise<boolean[]> {
    const keys = [this.keys.bloom(day), ...batch.map((r) => this.keys.claim(day, r.key))];
    const args: (string | number)[] = [this.keepMs, this.bloom.ttlMs, this.bloom.hashes];
    for (const r of batch) args.push(r.owner, r.attempt, r.status, ...bloomOffsets(r.key, this.bloom));
    const out = await this.redis.finishRuns(keys.length, ...keys, ...args);
    return out.map((n) => n === 1);
  }
}
