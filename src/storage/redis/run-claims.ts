import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';

export type ClaimResult =
  | { outcome: 'claimed'; attempt: number; leaseUntil: number }
  | { outcome: 'done'; attempt: number }
  | { outcome: 'busy'; attempt: number; leaseUntil: number };

/**
 * Claim records of runs in flight: one executor at a time per run, attempt numbers
 * that survive a crash (a lapsed lease is taken over with the next attempt), and a
 * "done" mark that stops re-fanned copies (takeover, compensator) from calling again.
 */
export class RunClaims {
  /**
   * @param keepMs how long a record outlives its lease or its finish: past any slice
   * retake (the previous-minute pass), after which the bloom filter and MySQL answer.
   */
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
    private readonly keepMs = 5 * 60_000,
  ) {}

  async claim(taskKey: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const [outcome, attempt, leaseUntil] = await this.redis.claimRun(
      this.keys.claim(taskKey),
      owner,
      leaseMs,
      this.keepMs,
    );
    if (outcome === 'claimed') return { outcome, attempt: Number(attempt), leaseUntil: Number(leaseUntil) };
    if (outcome === 'busy') return { outcome, attempt: Number(attempt), leaseUntil: Number(leaseUntil) };
    return { outcome: 'done', attempt: Number(attempt) };
  }

  /** Ends this owner's lease at once (shutdown); `attemptMade` false undoes the claimed attempt. */
  async release(taskKey: string, owner: string, attemptMade: boolean): Promise<void> {
    await this.redis.releaseRun(this.keys.claim(taskKey), owner, attemptMade ? 0 : 1);
  }

  /** Marks the run finished; false if another owner had taken it over. */
  async finish(taskKey: string, owner: string, attempt: number): Promise<boolean> {
    return (await this.redis.finishRun(this.keys.claim(taskKey), owner, attempt, this.keepMs)) === 1;
  }
}
