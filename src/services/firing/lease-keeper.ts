import type { Logger } from '../../observability/logger.js';
import type { RenewResult, RunClaims, RunRef } from '../../storage/redis/runs/run-claims.js';

/** A claim this process holds: the fencing token (owner + attempt) and how long it surely lasts. */
export interface Lease {
  readonly run: RunRef;
  readonly owner: string;
  readonly attempt: number;
  /** Local time until which the lease certainly holds; each renewal moves it on. */
  validUntil: number;
  /** Another owner or attempt holds the run now: this holder must neither send nor record it. */
  lost: boolean;
}

export interface LeaseTimes {
  /** How long a claim lasts without a renewal: a holder gone this long is taken over. */
  leaseMs: number;
  /** How often held leases are renewed. */
  heartbeatMs: number;
  /** Taken off every lease, for the time a renewal spends in flight and clocks that drift. */
  safetyMs: number;
}

/** A dead executor's runs are taken over 10 s after its last heartbeat; live ones renew every 2 s. */
export const LEASE_TIMES: LeaseTimes = { leaseMs: 10_000, heartbeatMs: 2000, safetyMs: 1000 };

/**
 * The holders' heartbeat (as BullMQ's worker extends the locks of its active jobs): every
 * run this process has claimed and not yet finished has its lease renewed before it
 * lapses, so a lapsed lease means the holder is gone, never that it is merely slow. A
 * renewal that finds the run in other hands marks the lease lost: the run is then
 * fenced off (RunExecutor checks before it sends). After Redis lost its data, renewals
 * write the records again, so copies of the runs fanned out after the loss find them held.
 */
export class LeaseKeeper {
  private readonly held = new Set<Lease>();
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly claims: Pick<RunClaims, 'renew'>,
    private readonly now: () => number,
    private readonly times: LeaseTimes = LEASE_TIMES,
    private readonly logger?: Logger,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /** The lease a claim asked for: to the run's due time, then one lease length. */
  claimLeaseMs(runAt: number): number {
    return Math.max(0, runAt - this.now()) + this.times.leaseMs;
  }

  /** Tracks a lease of `grantedMs` granted to a claim sent at local time `requestedAt`. */
  hold(run: RunRef, owner: string, attempt: number, requestedAt: number, grantedMs: number): Lease {
    const lease: Lease = {
      run,
      owner,
      attempt,
      validUntil: requestedAt + grantedMs - this.times.safetyMs,
      lost: false,
    };
    this.held.add(lease);
    return lease;
  }

  /** Stops renewing (the run finished, backed off or was given back). */
  drop(lease: Lease): void {
    this.held.delete(lease);
  }

  /** Renews `lease` now; true while this holder still has it. */
  async confirm(lease: Lease): Promise<boolean> {
    await this.renew([lease]);
    return !lease.lost;
  }

  /** Renews every held lease at once (Redis may have lost its data: write the records again). */
  async renewAll(): Promise<void> {
    await this.renew([...this.held]);
  }

  /** One heartbeat: renews the leases that would lapse before the next two. */
  async beat(): Promise<void> {
    const horizon = this.now() + 2 * this.times.heartbeatMs + this.times.safetyMs;
    const due: Lease[] = [];
    for (const lease of this.held) if (lease.validUntil < horizon) due.push(lease);
    await this.renew(due);
  }

  start(): this {
    const tick = () => {
      this.beating = this.beat()
        .catch((err) => this.logger?.warn({ err: (err as Error).message }, 'lease heartbeat failed'))
        .finally(() => {
          this.beating = null;
          if (this.timer) this.timer = setTimeout(tick, this.times.heartbeatMs);
        });
    };
    this.timer = setTimeout(tick, this.times.heartbeatMs);
    return this;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.beating;
  }

  private async renew(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const requestedAt = this.now();
    const results = await Promise.all(
      leases.map((l) => this.claims.renew(l.run, l.owner, l.attempt, this.times.leaseMs)),
    );
    let lost = 0;
    let reasserted = 0;
    results.forEach((result: RenewResult, i) => {
      const lease = leases[i]!;
      // Finished meanwhile (its record now holds the outcome): nothing is lost.
      if (!this.held.has(lease)) return;
      if (result === 'lost') {
        if (!lease.lost) lost++;
        lease.lost = true;
      } else {
        if (result === 'reasserted') reasserted++;
        lease.validUntil = Math.max(lease.validUntil, requestedAt + this.times.leaseMs - this.times.safetyMs);
      }
    });
    if (lost > 0 || reasserted > 0)
      this.logger?.warn(
        { lost, reasserted },
        'lease renewal found claims changed (Redis lost data, or a takeover)',
      );
  }
}
