import { type Logger, pino } from 'pino';

export type { Logger };

/** The process logger: JSON lines on stdout; child loggers add component, timer, task key, slice. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { pid: process.pid, ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
