import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UsageError } from './errors.js';

/** A timers file: one app's whole set of timers, each as the create body without `app`. */
export interface TimersFile {
  app: string;
  timers: Array<Record<string, unknown>>;
}

/** Reads a YAML or JSON file (`.json` is read as JSON, anything else as YAML, of which JSON is a part). */
export function readDocument(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new UsageError(
      `${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
}

/** A request body given as `-f <file>` (YAML or JSON) or `--data <json>`: exactly one of them. */
export function bodyFrom(opts: { file?: string | undefined; data?: string | undefined }): unknown {
  if ((opts.file === undefined) === (opts.data === undefined))
    throw new UsageError('give one of -f <file> and --data <json>');
  if (opts.file !== undefined) return readDocument(opts.file);
  try {
    return JSON.parse(opts.data!);
  } catch (err) {
    throw new UsageError(`--data is not JSON: ${(err as Error).message}`);
  }
}

/** A timers file `{app, timers: [...]}`; the timers themselves are the API's to check. */
export function readTimersFile(path: string): TimersFile {
  const doc = readDocument(path) as Partial<TimersFile> | null;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new UsageError(`${path}: expected an object {app, timers: [...]}`);
  }
  if (typeof doc.app !== 'string' || doc.app === '')
    throw new UsageError(`${path}: app: expected the app's name`);
  if (!Array.isArray(doc.timers)) throw new UsageError(`${path}: timers: expected a list of timers`);
  const extra = Object.keys(doc).filter((k) => k !== 'app' && k !== 'timers');
  if (extra.length > 0)
    throw new UsageError(`${path}: unknown key ${extra.join(', ')} (expected app and timers)`);
  return { app: doc.app, timers: doc.timers };
}
