import type { Command } from 'commander';
import { type components, createXtimerClient, type XtimerClient } from '../client/index.js';
import { ApiError, UsageError } from './errors.js';
import { type Colors, colorsFor, type Terminal, table } from './terminal.js';
import { scheduleOf } from './timer-view.js';

type Timer = components['schemas']['Timer'];

export interface GlobalOptions {
  url: string;
  token?: string | undefined;
  json?: boolean | undefined;
}

/** What every command group is built with: the terminal, the global options, the client, the printers. */
export interface CliContext {
  term: Terminal;
  colors: Colors;
  out(text: string): void;
  globals(cmd: Command): GlobalOptions;
  clientOf(cmd: Command): XtimerClient;
  printJson(value: unknown): void;
  printTimer(cmd: Command, t: Timer): void;
}

/** openapi-fetch's answer: the data, or the API's error envelope. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; an error answer becomes an ApiError (exit 1) with the API's code and message. */
export async function must<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const envelope = (
    error as
      | { error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> } }
      | undefined
  )?.error;
  throw new ApiError(
    envelope?.code ?? `HTTP_${response.status}`,
    envelope?.message ?? response.statusText,
    response.status,
    Array.isArray(envelope?.details) ? envelope.details : [],
  );
}

/** Reads pages until `limit` items or the last page; `page(cursor, n)` asks for at most n (the API's most is 500). */
export async function collectPages<T>(
  limit: number,
  page: (cursor: string | undefined, n: number) => Promise<{ items: T[]; nextCursor?: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const got = await page(cursor, Math.min(500, limit - items.length));
    items.push(...got.items);
    cursor = got.nextCursor ?? undefined;
  } while (cursor !== undefined && items.length < limit);
  return items;
}

export function createCliContext(term: Terminal): CliContext {
  const out = (text: string): void => {
    term.stdout.write(text);
  };
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals<GlobalOptions>();
  const printJson = (value: unknown): void => out(`${JSON.stringify(value, null, 2)}\n`);
  return {
    term,
    colors: colorsFor(term.stdout, term.env),
    out,
    globals,
    clientOf(cmd) {
      const { url } = globals(cmd);
      const token = globals(cmd).token ?? (term.env.XTIMER_TOKEN || undefined);
      try {
        new URL(url);
      } catch {
        throw new UsageError(`--url ${JSON.stringify(url)} is not a URL`);
      }
      return createXtimerClient({ baseUrl: url, token });
    },
    printJson,
    printTimer(cmd, t) {
      if (globals(cmd).json) {
        printJson(t);
        return;
      }
      const paused = [t.pausedNote, t.pausedUntil && `until ${t.pausedUntil}`].filter(Boolean).join(' ');
      const rows: Array<[string, string]> = [
        ['id', String(t.id)],
        ['app', t.app],
        ['name', t.name],
        ['status', t.status],
        ...(paused ? [['paused', paused] as [string, string]] : []),
        ['schedule', scheduleOf(t)],
        ['timezone', t.timezone],
        ['callback', `${t.callback.method} ${t.callback.url}`],
        ['retry', `${t.retry.maxAttempts} attempts, backoff ${t.retry.backoffMs} ms`],
        ['misfire', t.misfirePolicy],
        [
          'labels',
          Object.entries(t.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(', '),
        ],
        ['description', t.description ?? ''],
        ['updated', t.updatedAt],
      ];
      out(table(['FIELD', 'VALUE'], rows));
    },
  };
}
