/** What untilReady reports: each failed try, and that the store answers. */
export interface ReadinessLog {
  lost(err: unknown): void;
  reachable(): void;
}

/**
 * Calls `attempt` until it succeeds, waiting 0.5 s more after each failure (at most 5 s):
 * a process started before its stores keeps trying rather than exiting. How often that is
 * said is the log's to decide.
 */
export async function untilReady(log: ReadinessLog, attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await attempt();
      log.reachable();
      return;
    } catch (err) {
      log.lost(err);
      await new Promise((r) => setTimeout(r, Math.min(tries * 500, 5000)));
    }
  }
}
