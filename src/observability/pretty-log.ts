/**
 * LOG_FORMAT=pretty: each JSON line the logger wrote (already redacted, scrubbed and
 * capped) as one line a person reads at a terminal — time, level, component, message,
 * then the other fields as key=value — with an error's stack indented below it.
 */

/** Fields the line's head shows, or that a person at a terminal does not need. */
const HEAD = new Set(['time', 'level', 'component', 'msg', 'pid']);
/** A value written bare; anything else is quoted as JSON. */
const BARE = /^[^\s"=\\]+$/;

interface ErrorFields {
  message: string;
  code?: unknown;
  stack?: unknown;
}

function isErrorFields(value: unknown): value is ErrorFields {
  return typeof value === 'object' && value !== null && typeof (value as ErrorFields).message === 'string';
}

function shown(value: unknown): string {
  if (typeof value === 'string') return BARE.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** One JSON log line (with or without its newline) as a pretty one, ending in a newline. */
export function prettyLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const level = String(entry.level ?? '').toUpperCase();
  const head = [String(entry.time ?? ''), level.padEnd(5)];
  if (entry.component !== undefined) head.push(`[${String(entry.component)}]`);
  if (entry.msg !== undefined) head.push(String(entry.msg));
  const fields: string[] = [];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (HEAD.has(key) || value === undefined) continue;
    if (isErrorFields(value)) {
      const code = typeof value.code === 'string' || typeof value.code === 'number' ? ` (${value.code})` : '';
      fields.push(`${key}=${JSON.stringify(`${value.message}${code}`)}`);
      if (typeof value.stack === 'string') stacks.push(value.stack);
      continue;
    }
    fields.push(`${key}=${shown(value)}`);
  }
  const line = [...head, ...fields].join(' ');
  const below = stacks.map((stack) => `\n${stack.replace(/^/gm, '    ')}`).join('');
  return `${line}${below}\n`;
}

/** A pino destination that writes each line pretty to `out` (stdout unless given). */
export function prettyDestination(out: { write(text: string): unknown } = process.stdout): {
  write(line: string): void;
} {
  return {
    write(line: string) {
      out.write(prettyLine(line));
    },
  };
}
