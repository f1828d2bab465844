import type { TaskStatus } from '../../domain/timer.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';

export type FinalStatus = Exclude<TaskStatus, 'pending' | 'running'>;

export type ClaimResult =
  | { outcome: 'claimed'; attempt: number; leaseUntil: number }
  | { outcome: 'done'; attempt: number; status: FinalStatus }
  | { outcome: 'busy'; attempt: number; leaseUntil: number };

/**
 * Claim records of runs in flight: one executor at a time per run, attempt numbers
 * that survive a crash (a lapsed lease is taken over with the next attempt), and the
 * outcome of a finished run, which stops re-fanned copies (takeover, compensator) from
 * calling it again.
 */
export class RunClaims {
  /**
   * @param keepMs how long a record outlives its lease or its finish: past any slice
   * retake and past the compensator's first look at a run whose MySQL write was lost
   * (3 min), after which the bloom filter and MySQL answer.
   */
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly keepMs = 6 * 60_000,
  ) {}

  async claim(taskKey: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const [outcome, attempt, leaseUntil, status] = await this.redis.claimRun(
      this.keys.claim(taskKey),
      owner,
      leaseMs,
      this.keepMs,
    );
    if (outcome === 'claimed' || outcome === 'busy') {
      return { outcome, attempt: Number(attempt), leaseUntil: Number(leaseUntil) };
    }
    return { outcome: 'done', attempt: Number(attempt), status: (status ?? 'succeeded') as FinalStatus };
  }

  /**
   * Is this owner's claim still standing, right before the call goes out? 'lost' when
   * the record is gone (Redis lost its data), 'taken' when another owner holds or finished
   * the run — then this copy must not be sent.
   */
  async verify(taskKey: string, owner: string): Promise<'mine' | 'lost' | 'taken'> {
    const record = await this.redis.get(this.keys.claim(taskKey));
    if (record === null) return 'lost';
    const [state, , , holder] = record.split('|', 4);
    return state === 'running' && holder === owner ? 'mine' : 'taken';
  }

  /** The claim records of several runs (null where there is none), one pipelined GET each. */
  async peek(
    taskKeys: readonly string[],
  ): Promise<Array<{ state: 'running' | FinalStatus; attempt: number } | null>> {
    if (taskKeys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of taskKeys) pipeline.get(this.keys.claim(key));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, record]) => {
      if (err || typeof record !== 'string') return null;
      const [state, attempt] = record.split('|', 2);
      return { state: state as 'running' | FinalStatus, attempt: Number(attempt) };
    });
  }

  /** Ends this owner's lease at once (shutdown); `attemptMade` false undoes the claimed attempt. */
  async release(taskKey: string, owner: string, attemptMade: boolean): Promise<void> {
    await this.redis.releaseRun(this.keys.claim(taskKey), owner, attemptMade ? 0 : 1);
  }

  /** Records the run's outcome; false if another owner had taken it over. */
  async finish(taskKey: string, owner: string, attempt: number, status: FinalStatus): Promise<boolean> {
    return (await this.redis.finishRun(this.keys.claim(taskKey), owner, attempt, status, this.keepMs)) === 1;
  }
}
