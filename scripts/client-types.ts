// `npm run client:types`: writes client/openapi-types.ts, the types of `xtimer/client`,
// generated with openapi-typescript from the service's own OpenAPI document — the one
// the API serves at /openapi.json, built here in-process from the same route schemas
// (no database needed), or fetched from a running service with `--url http://host:port`.
// `--check` writes nothing and exits 1 when the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { createApp } from '../api/app.js';
import { createLogger } from '../src/observability/logger.js';

export const TYPES_FILE = fileURLToPath(new URL('../client/openapi-types.ts', import.meta.url));

const HEADER =
  "// Generated from xtimer's /openapi.json by `npm run client:types` (openapi-typescript). Do not edit.\n\n";

/** The TypeScript of `xtimer/client`'s types for an OpenAPI document. */
export async function typesFromSpec(spec: unknown): Promise<string> {
  // A field with a default may be left out of a request: optional, as the document's `required` says.
  const ast = await openapiTS(spec as OpenAPI3, { silent: true, defaultNonNullable: false });
  return HEADER + astToString(ast);
}

/** The document the API serves, from an app over no stores: /openapi.json reads none. */
export async function specInProcess(): Promise<unknown> {
  const app = createApp({
    timers: {} as never,
    apps: { open: true } as never,
    audit: {} as never,
    servicePause: {} as never,
    readiness: {},
    callbackTimeoutMs: 10_000,
    logger: createLogger('silent'),
  });
  const res = await app.request('http://127.0.0.1/openapi.json');
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  return res.json();
}

async function specAt(base: string): Promise<unknown> {
  const res = await fetch(new URL('/openapi.json', base));
  if (res.status !== 200) throw new Error(`${base}/openapi.json answered ${res.status}`);
  return res.json();
}

async function main(args: string[]): Promise<void> {
  const at = args.indexOf('--url');
  const spec = at >= 0 ? await specAt(args[at + 1] ?? '') : await specInProcess();
  const types = await typesFromSpec(spec);
  if (args.includes('--check')) {
    if (readFileSync(TYPES_FILE, 'utf8') !== types) {
      console.error('client/openapi-types.ts differs from the API: run npm run client:types');
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(TYPES_FILE, types);
  console.error(`wrote ${TYPES_FILE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
