// `npm run build`: compiles the TypeScript of the service, its client and CLI
// (tsconfig.build.json, plus the client's declarations: tsconfig.client.json) into dist/,
// copies the files the compiled code reads at run time (Lua scripts, SQL migrations and
// their drizzle journal) next to it at the same relative paths, and stamps dist/ with a
// hash of the sources it was built from.
//
// `--if-stale` (the prestart of every npm start script) builds only when that stamp does
// not match the sources, so `npm install && npm start` on a fresh clone builds once and
// later starts cost a hash of the sources (~50 ms). Builds are serialised by a lock
// directory, so several start scripts launched at once build once between them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stampFile = join(dist, '.source-hash');
const lockDir = join(root, '.build-lock');
const LOCK_STALE_MS = 10 * 60_000;

/** What the build reads: a change to any of these makes dist stale. */
const SOURCES = [
  'src',
  'api',
  'workers',
  'dashboard',
  'http',
  'client',
  'cli',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.client.json',
];

/** Folders copied whole into dist, and the file names taken from each (null = every file). */
const ASSETS = [
  { from: 'src/storage/redis/lua', match: /\.lua$/ },
  { from: 'src/storage/db/migrations', match: null },
];

function filesUnder(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true })
    .map((entry) => join(path, String(entry)))
    .filter((file) => statSync(file).isFile());
}

function sourceHash() {
  const hash = createHash('sha256');
  const files = SOURCES.flatMap((s) => filesUnder(join(root, s))).sort();
  for (const file of files)
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

const upToDate = (hash) => existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash;

function copyAssets() {
  let copied = 0;
  for (const { from, match } of ASSETS) {
    const source = join(root, from);
    for (const file of filesUnder(source)) {
      if (match && !match.test(file)) continue;
      const out = join(dist, from, relative(source, file));
      mkdirSync(dirname(out), { recursive: true });
      copyFileSync(file, out);
      copied++;
    }
  }
  return copied;
}

function compile() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    fail(
      'dist/ is missing or older than the sources, and TypeScript is not installed: run `npm install` (with dev dependencies) first, or deploy a dist/ built by `npm run build`',
    );
  }
  // A file removed from the sources must not linger in dist.
  rmSync(dist, { recursive: true, force: true });
  // The service, then the declarations of the `xtimer/client` export (its .d.ts files).
  for (const project of ['tsconfig.build.json', 'tsconfig.client.json']) {
    const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) fail(`tsc -p ${project} failed`);
  }
}

function fail(message) {
  throw new Error(message);
}

/** Takes the build lock, waiting for another build to finish; a lock left by a killed build lapses. */
function lock() {
  for (;;) {
    try {
      mkdirSync(lockDir);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs;
      if (age > LOCK_STALE_MS) rmSync(lockDir, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

const ifStale = process.argv.includes('--if-stale');
// A deployment may ship dist/ without the sources: nothing to compare, run what is there.
if (ifStale && !existsSync(join(root, 'src'))) process.exit(0);
if (ifStale && upToDate(sourceHash())) process.exit(0);

lock();
try {
  const hash = sourceHash();
  // Another start script may have built while this one waited for the lock.
  if (!(ifStale && upToDate(hash))) {
    const started = Date.now();
    if (ifStale)
      console.error(
        `build: dist/ is ${existsSync(stampFile) ? 'older than the sources' : 'not built yet'}; building it (npm run build)`,
      );
    compile();
    const copied = copyAssets();
    writeFileSync(stampFile, hash);
    console.error(
      `build: dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s (${copied} assets copied)`,
    );
  }
} catch (err) {
  console.error(`build: ${err.message}`);
  process.exitCode = 1;
} finally {
  rmSync(lockDir, { recursive: true, force: true });
}
