import type { Timer } from '../../../domain/timer.js';
import type { Logger } from '../../../observability/logger.js';

/** What a failed or missed run's log line says, in one line a person can act on. */
export interface EndedRunFields {
  app: string;
  /** The timer's name. */
  timer: string;
  timerId: number;
  taskKey: string;
  /** The callback's host and port only: a URL's path and query may carry a token. */
  host: string;
  /** How it ended: `HTTP 503`, the call's error, or why it was missed. */
  reason: string | null;
}

/** Built only for a run that failed or was missed: the log line of the run, not the hot path's. */
export function endedRunFields(timer: Timer, taskKey: string, reason: string | null): EndedRunFields {
  let host: string;
  try {
    host = new URL(timer.callback.url).host;
  } catch {
    host = '?';
  }
  return { app: timer.app, timer: timer.name, timerId: timer.id, taskKey, host, reason };
}

/** Failed and missed runs logged one by one in a window, at most; the rest are counted. */
const LINES_PER_WINDOW = 20;
const WINDOW_MS = 10_000;

/**
 * The log of runs that ended failed or missed: a line each while they are few, and past
 * LINES_PER_WINDOW in 10 s one line at the window's end counting the rest. An overload
 * misses thousands of runs a second, and a line for each drowned everything else an
 * operator needed to read (and cost the process the writing of it).
 */
export class EndedRunLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private logged = 0;
  private unlogged: Record<string, number> = {};
  private flush: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** One ended run: `failed` or `missed`, with its fields. */
  ended(status: 'failed' | 'missed', fields: EndedRunFields & { attempts?: number }): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.summarise();
      this.windowStart = now;
      this.logged = 0;
    }
    if (this.logged < LINES_PER_WINDOW) {
      this.logged++;
      this.logger.warn(fields, status === 'failed' ? 'run failed' : 'run missed');
      return;
    }
    this.unlogged[status] = (this.unlogged[status] ?? 0) + 1;
    this.flush ??= setTimeout(() => this.summarise(), this.windowStart + WINDOW_MS - now).unref();
  }

  /** Says how many ended runs of the window went unlogged, if any. */
  summarise(): void {
    if (this.flush) clearTimeout(this.flush);
    this.flush = null;
    const counts = this.unlogged;
    this.unlogged = {};
    if (Object.keys(counts).length === 0) return;
    this.logger.warn(
      { ...counts, withinMs: WINDOW_MS },
      `more runs ended failed or missed than are logged one by one (${LINES_PER_WINDOW} in ${WINDOW_MS / 1000} s): these were counted only; xtimer_runs_total has them all`,
    );
  }
}

const logs = new WeakMap<object, EndedRunLog>();

/** The ended-run log of a logger: one per logger, so every run it logs shares the limit. */
export function endedRunLogOf(logger: Pick<Logger, 'warn'>): EndedRunLog {
  let log = logs.get(logger);
  if (!log) {
    log = new EndedRunLog(logger);
    logs.set(logger, log);
  }
  return log;
}
