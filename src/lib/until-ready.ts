/** What untilReady reports: each failed try, and that the store answers. */
export interface ReadinessLog {
  lost(err: unknown): void;
  reachable(): void;
}

/**
 * Calls `attempt` until it succeeds, waiting 0.5 s more after each failure (at most 5 s):
 * a process started before its stores keeps trying rather than exiting. How often that is
 * said is the log's to decide. Returns what the successful try returned.
 */
export async function untilReady<T>(log: ReadinessLog, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt();
      log.reachable();
      return result;
    } catch (err) {
      log.lost(err);
      await new Promise((r) => setTimeout(r, Math.min(tries * 500, 5000)));
    }
  }
}
