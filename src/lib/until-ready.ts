/** What untilReady says while it waits (a pino logger is one). */
export interface ReadinessLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Calls `attempt` until it succeeds, waiting 0.5 s more after each failure (at most 5 s)
 * and saying so: a process started before its stores keeps trying rather than exiting.
 */
export async function untilReady(
  what: string,
  logger: ReadinessLog,
  attempt: () => Promise<void>,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await attempt();
      return;
    } catch (err) {
      const wait = Math.min(tries * 500, 5000);
      logger.warn({ err: (err as Error).message, retryInMs: wait, tries }, `${what} is not reachable yet`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
