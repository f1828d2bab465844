import { type Logger, pino } from 'pino';
import { prettyDestination } from './pretty-log.js';

export type { Logger };

/** The longest log line written; a longer one is replaced by a short line saying so. */
export const MAX_LOG_LINE_BYTES = 16 * 1024;
/** The longest string value (an error message, a stack) a log line carries. */
const MAX_STRING_CHARS = 4096;

/**
 * What never goes into a log (docs/security.md): credentials, callback header values and
 * bodies, and the parameters of SQL statements (a timer's headers and body among them).
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers',
  '*.headers',
  '*.*.headers',
  'body',
  '*.body',
  '*.*.body',
  'params',
  '*.params',
  'sql',
  '*.sql',
];

/**
 * drizzle's query errors read "Failed query: <sql>\nparams: <values>", and their stack
 * repeats it: the values go, up to the stack frames that follow them.
 */
const SQL_PARAMS = /\nparams: [\s\S]*?(?=\n\s+at |$)/;

/** A string fit for a log line: no SQL parameters, and not longer than MAX_STRING_CHARS. */
export function scrubbed(text: string): string {
  const clean = text.replace(SQL_PARAMS, '\nparams: [redacted]');
  return clean.length > MAX_STRING_CHARS ? `${clean.slice(0, MAX_STRING_CHARS)}… [truncated]` : clean;
}

type ErrorLike = Error & { code?: unknown; errno?: unknown; sqlState?: unknown };

/**
 * Errors as name, message, code and stack (scrubbed), and their cause: never their other
 * properties, where database drivers keep the statement with its values (`sql`, `params`).
 */
function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? scrubbed(err) : err;
  const e = err as ErrorLike;
  const out: Record<string, unknown> = { type: e.name, message: scrubbed(e.message) };
  for (const key of ['code', 'errno', 'sqlState'] as const) {
    if (typeof e[key] === 'string' || typeof e[key] === 'number') out[key] = e[key];
  }
  if (e.stack) out.stack = scrubbed(e.stack);
  if (e.cause !== undefined && depth < 3) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/** Top-level strings too (many call sites log `err: err.message`). */
function scrubStrings(object: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(object)) {
    if (typeof value === 'string' && value.length > 0) object[key] = scrubbed(value);
  }
  return object;
}

/**
 * Any line over MAX_LOG_LINE_BYTES (something large was logged whole) becomes one that
 * keeps the level, time, bindings and the start of the message, and says how long it was.
 */
function capLine(line: string): string {
  if (line.length <= MAX_LOG_LINE_BYTES) return line;
  let original: Record<string, unknown> = {};
  try {
    original = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // Not JSON after all: only the length is kept.
  }
  const kept: Record<string, unknown> = {};
  for (const key of ['level', 'time', 'pid', 'component', 'taskKey', 'timerId', 'slice']) {
    if (original[key] !== undefined) kept[key] = original[key];
  }
  const msg = typeof original.msg === 'string' ? original.msg.slice(0, 512) : undefined;
  return `${JSON.stringify({ ...kept, msg, truncatedFromBytes: Buffer.byteLength(line) })}\n`;
}

/** How lines read (LOG_FORMAT): JSON for a collector, or pretty for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * The process logger: lines on stdout (or `destination`), JSON or pretty; child loggers add
 * component, timer, task key, slice. Pretty lines are rendered from the JSON ones, so both
 * carry the same fields, redacted and capped alike.
 */
export function createLogger(
  level: string,
  bindings: Record<string, unknown> = {},
  destination?: pino.DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid, ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: scrubStrings },
    serializers: { err: serializeError, error: serializeError },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    hooks: { streamWrite: capLine },
  };
  if (format === 'pretty') return pino(options, prettyDestination(destination ?? process.stdout));
  return destination ? pino(options, destination) : pino(options);
}
