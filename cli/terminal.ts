/** What the CLI writes to and reads from: the process's own, or a test's. */
export interface Terminal {
  stdout: { write(text: string): unknown; isTTY?: boolean | undefined };
  stderr: { write(text: string): unknown; isTTY?: boolean | undefined };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  env: Record<string, string | undefined>;
}

export interface Colors {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/**
 * Colour only for a terminal, and never with NO_COLOR set (https://no-color.org);
 * FORCE_COLOR turns it on for a pipe (a CI log that renders colour).
 */
export function colorsFor(stream: { isTTY?: boolean | undefined }, env: Terminal['env']): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0';
  const on = !(env.NO_COLOR !== undefined && env.NO_COLOR !== '') && (stream.isTTY === true || forced);
  const paint = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    green: paint(32, 39),
    red: paint(31, 39),
    yellow: paint(33, 39),
    dim: paint(2, 22),
    bold: paint(1, 22),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matches the colour codes colorsFor writes
const ANSI = /\u001b\[[0-9;]*m/g;

/** Rows in aligned columns under a header, two spaces apart (colour codes take no width). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const width = (s: string) => s.replace(ANSI, '').length;
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - width(c))))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
